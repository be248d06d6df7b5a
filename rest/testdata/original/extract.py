#!/usr/bin/env python3
"""Writes b3f7d2f-responses.json: the 2xx JSON response schema of every operation of the
original's current OpenAPI document (d4mr/opensesh at b3f7d2f), keyed by operationId, $refs
resolved. Operations that answer no JSON body (204) are left out.

    python3 rest/testdata/original/extract.py openapi-b3f7d2f.json > rest/testdata/original/b3f7d2f-responses.json
"""
import json
import sys


def resolve(node, doc):
    if isinstance(node, dict):
        if "$ref" in node:
            target = doc
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            return resolve(target, doc)
        return {k: resolve(v, doc) for k, v in node.items()}
    if isinstance(node, list):
        return [resolve(v, doc) for v in node]
    return node


def main():
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    out = {}
    for item in doc["paths"].values():
        for op in item.values():
            if not isinstance(op, dict) or "operationId" not in op:
                continue
            for status, resp in sorted(op.get("responses", {}).items()):
                schema = resp.get("content", {}).get("application/json", {}).get("schema")
                if status.startswith("2") and schema is not None:
                    out[op["operationId"]] = resolve(schema, doc)
                    break
    json.dump(out, sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")


main()
