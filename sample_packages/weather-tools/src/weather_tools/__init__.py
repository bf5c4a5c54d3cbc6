"""weather-tools: deterministic, offline weather data (an agenttools sample package)."""

from weather_tools.data import STATIONS, forecast, observation

__all__ = ["STATIONS", "forecast", "observation"]
__version__ = "1.2.0"
