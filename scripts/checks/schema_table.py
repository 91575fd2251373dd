#!/usr/bin/env python3
"""A block of configs/schema.json as docs/config.md's table: each key, its default and its title (what it
sets), so the manual's defaults are the schema's, which `occbench validate` and the engine share:

    python3 scripts/checks/schema_table.py measurement
"""
import json
import sys
from pathlib import Path

SCHEMA = Path(__file__).resolve().parents[2] / "configs" / "schema.json"


def default_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"`{value}`" if isinstance(value, str) else str(value)


def main(block):
    properties = json.loads(SCHEMA.read_text())["properties"][block]["properties"]
    print("| key | default | what it sets |\n| --- | --- | --- |")
    for key, spec in properties.items():
        print(f"| `{key}` | {default_text(spec.get('default', '–'))} | {spec.get('title', spec.get('description', ''))} |")


if __name__ == "__main__":
    main(sys.argv[1])
