"""Runs the official Substrait validator over binary plan files.

Usage: python3 validate.py PLAN.bin...
Prints one JSON object per diagnostic of level warning or error:
{"file": ..., "level": "error"|"warning"|"unparsed", "code": ..., "path": ..., "msg": ...}
and exits 0 (findings are judged by the Go test that runs this script).
"""
import json
import re
import sys

import substrait_validator as sv


def config():
    c = sv.Config()
    # Extension YAMLs are not resolved: validator 0.1.4 does not match
    # function calls with their definitions anyway ("not yet implemented"),
    # its YAML schema (Substrait 0.57) rejects the current standard files
    # (their "urn" and "description" keys), and tests have no network.
    c.set_max_uri_resolution_depth(0)
    return c


# One diagnostic of the validator's text export: "Error at PATH: MSG (code N)".
# The text export is used rather than the parse tree, which nests deeper than
# Python's protobuf decoder accepts for plans of a few joins.
LINE = re.compile(r"^(Info|Warning|Error) at (\S+): (.*) \(code (\d+)\)$")


def main(paths):
    for path in paths:
        with open(path, "rb") as f:
            data = f.read()
        text = sv.plan_to_result_handle(data, config()).export_diagnostics()
        for line in text.splitlines():
            m = LINE.match(line)
            if m is None:
                # Never drop what cannot be read: the Go test fails on it.
                print(json.dumps({"file": path, "level": "unparsed", "code": 0, "path": "", "msg": line}), flush=True)
                continue
            level = m.group(1).lower()
            if level == "info":
                continue
            print(json.dumps({
                "file": path, "level": level, "code": int(m.group(4)),
                "path": m.group(2), "msg": m.group(3),
            }), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
