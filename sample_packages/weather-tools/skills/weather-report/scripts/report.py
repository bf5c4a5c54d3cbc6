#!/usr/bin/env python3
"""Format a one-line weather report: report.py STATION TEMPERATURE SKY..."""

import sys


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print("usage: report.py STATION TEMPERATURE SKY...", file=sys.stderr)
        return 2
    station, temperature, *sky = argv
    print(f"{station.upper()}: {temperature}, {' '.join(sky)}.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
