#!/usr/bin/env python3
"""Validates loggp reports against the shipped JSON Schema with Python's jsonschema: a
validator independent of the Rust types the schema is generated from.

Usage: validate_report.py SCHEMA REPORT...   (exit 0: all valid; 1: errors listed)"""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
validator = cls(schema)
bad = 0
for path in sys.argv[2:]:
    errors = sorted(validator.iter_errors(json.load(open(path))), key=lambda e: list(e.path))
    for e in errors[:5]:
        where = "/".join(str(p) for p in e.path) or "(top)"
        print(f"{path}: {where}: {e.message[:300]}")
    bad += bool(errors)
sys.exit(1 if bad else 0)
