"""Fixed weather data: the same answer every time, no network."""

from __future__ import annotations

import os
from typing import Any

STATIONS: dict[str, dict[str, Any]] = {
    "EDDB": {
        "name": "Berlin Brandenburg",
        "temperature_c": 11.5,
        "wind_kph": 18,
        "sky": "overcast",
    },
    "KSEA": {"name": "Seattle-Tacoma", "temperature_c": 9.0, "wind_kph": 12, "sky": "light rain"},
    "RJTT": {"name": "Tokyo Haneda", "temperature_c": 17.0, "wind_kph": 9, "sky": "clear"},
}


def _units() -> str:
    return os.environ.get("WEATHER_UNITS", "metric")


def _temperature(celsius: float) -> str:
    if _units() == "imperial":
        return f"{celsius * 9 / 5 + 32:.1f} °F"
    return f"{celsius:.1f} °C"


def observation(station: str) -> dict[str, Any]:
    """The current observation at *station* (an ICAO code). Raises KeyError if unknown."""
    data = STATIONS[station.upper()]
    return {
        "station": station.upper(),
        "name": data["name"],
        "temperature": _temperature(data["temperature_c"]),
        "wind_kph": data["wind_kph"],
        "sky": data["sky"],
    }


def forecast(station: str, days: int = 3) -> list[dict[str, Any]]:
    """A deterministic *days*-day forecast for *station*."""
    data = STATIONS[station.upper()]
    out = []
    for day in range(1, max(1, min(days, 7)) + 1):
        out.append(
            {
                "day": day,
                "temperature": _temperature(data["temperature_c"] + day * 0.5),
                "precipitation_chance": (day * 17) % 100,
            }
        )
    return out
