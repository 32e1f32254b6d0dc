#!/usr/bin/env python3
"""Checks a Node Problem Detector custom plugin monitor config the way NPD does
at start-up (kubernetes/node-problem-detector:pkg/custompluginmonitor/types/config.go):

- "plugin" is "custom";
- pluginConfig durations parse (Go syntax), the defaults applied
  (invoke_interval 30s, timeout 5s, max_output_length 80, concurrency 3);
- concurrency and max_output_length are positive;
- every rule's type is "temporary" or "permanent"; a permanent rule's
  "condition" names an entry of "conditions";
- every rule's timeout (default: the global one) is <= the global timeout;
- every rule's path exists (--path-map FROM=TO checks TO instead of FROM);
- "args" is a list of strings.
Unknown keys are reported too: NPD ignores them silently, so a typo would
silently fall back to a default.

Exit 0 when valid; 1 with one line per problem on stderr.
Usage: check-config.py FILE [--path-map FROM=TO] [--print-rules]
"""
import json
import os
import re
import sys

TOP_KEYS = {"plugin", "pluginConfig", "source", "metricsReporting", "conditions", "rules"}
PLUGIN_KEYS = {"invoke_interval", "timeout", "max_output_length", "concurrency",
               "enable_message_change_based_condition_update", "skip_initial_status"}
RULE_KEYS = {"type", "condition", "reason", "path", "args", "timeout", "invoke_interval"}
CONDITION_KEYS = {"type", "reason", "message"}
UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def go_duration(text):
    """Seconds for a Go duration string ("1m30s", "500ms"), or None."""
    if not isinstance(text, str) or not text:
        return None
    if text == "0":
        return 0.0
    parts = re.findall(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)", text)
    if "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(n) * UNITS[u] for n, u in parts)


def check(cfg, path_map):
    errors = []
    if not isinstance(cfg, dict):
        return ["the config is not a JSON object"]
    errors += ["unknown key %r" % k for k in cfg if k not in TOP_KEYS]
    if cfg.get("plugin") != "custom":
        errors.append('plugin is %r; NPD only supports "custom"' % cfg.get("plugin"))
    pc = cfg.get("pluginConfig", {})
    errors += ["pluginConfig: unknown key %r" % k for k in pc if k not in PLUGIN_KEYS]
    interval = go_duration(pc.get("invoke_interval", "30s"))
    timeout = go_duration(pc.get("timeout", "5s"))
    if interval is None or interval <= 0:
        errors.append("pluginConfig.invoke_interval %r is not a positive duration"
                      % pc.get("invoke_interval"))
    if timeout is None or timeout <= 0:
        errors.append("pluginConfig.timeout %r is not a positive duration" % pc.get("timeout"))
    for key, default in (("max_output_length", 80), ("concurrency", 3)):
        v = pc.get(key, default)
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            errors.append("pluginConfig.%s must be a positive integer, not %r" % (key, v))
    conditions = cfg.get("conditions", [])
    names = set()
    for i, c in enumerate(conditions):
        errors += ["conditions[%d]: unknown key %r" % (i, k) for k in c if k not in CONDITION_KEYS]
        for k in ("type", "reason", "message"):
            if not isinstance(c.get(k), str) or not c.get(k):
                errors.append("conditions[%d].%s must be a non-empty string" % (i, k))
        names.add(c.get("type"))
    rules = cfg.get("rules", [])
    if not rules:
        errors.append("no rules")
    for i, r in enumerate(rules):
        where = "rules[%d]" % i
        errors += ["%s: unknown key %r" % (where, k) for k in r if k not in RULE_KEYS]
        if r.get("type") not in ("temporary", "permanent"):
            errors.append('%s.type %r is not "temporary" or "permanent"' % (where, r.get("type")))
        if r.get("type") == "permanent" and r.get("condition") not in names:
            errors.append("%s: permanent problem %r does not have preset condition"
                          % (where, r.get("condition")))
        if not r.get("reason"):
            errors.append("%s.reason is empty" % where)
        rt = go_duration(r.get("timeout")) if "timeout" in r else timeout
        if rt is None or rt <= 0:
            errors.append("%s.timeout %r is not a positive duration" % (where, r.get("timeout")))
        elif timeout is not None and rt > timeout:
            errors.append("%s: plugin timeout %s is greater than global timeout %s"
                          % (where, r.get("timeout"), pc.get("timeout", "5s")))
        if "invoke_interval" in r and (go_duration(r["invoke_interval"]) or 0) <= 0:
            errors.append("%s.invoke_interval %r is not a positive duration"
                          % (where, r["invoke_interval"]))
        path = r.get("path")
        if not isinstance(path, str) or not path:
            errors.append("%s.path is missing" % where)
        else:
            real = path_map.get(path, path)
            if not os.path.exists(real):
                errors.append("%s: rule path %r does not exist" % (where, real))
        args = r.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            errors.append("%s.args must be a list of strings" % where)
    return errors


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    path_map = {}
    args = argv[2:]
    print_rules = "--print-rules" in args
    while "--path-map" in args:
        i = args.index("--path-map")
        src, dst = args[i + 1].split("=", 1)
        path_map[src] = dst
        del args[i:i + 2]
    with open(argv[1], encoding="utf-8") as f:
        cfg = json.load(f)
    errors = check(cfg, path_map)
    for e in errors:
        print("%s: %s" % (argv[1], e), file=sys.stderr)
    if not errors and print_rules:
        # One line per rule for scripts: timeout seconds, max output, path, args.
        pc = cfg.get("pluginConfig", {})
        for r in cfg["rules"]:
            t = go_duration(r.get("timeout", pc.get("timeout", "5s")))
            print(t, pc.get("max_output_length", 80), r["path"], *r.get("args", []), sep="\t")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
