#!/usr/bin/env python3
"""The figures of docs/architecture.md and issue 45, read off the main sources (no build needed).

Usage: python3 src/tools/architecture-figures.py [repository root]   (default: the current directory)

- per module: main lines (every line of src/main/java) and public top-level types;
- per `internal` package: its public types, and those a main file of another package imports;
- package cycles: the strongly connected components (and the elementary cycles in them) of the graph
  "a main file of package A imports a type of package B" (imports only: a type of the same package needs none).
"""
import os
import re
import sys
from collections import defaultdict

ROOT = sys.argv[1] if len(sys.argv) > 1 else "."
PACKAGE = re.compile(r"^package\s+([\w.]+)\s*;", re.M)
IMPORT = re.compile(r"^import\s+(?:static\s+)?(dev\.ratelimit\.[\w.]+)\s*;", re.M)
PUBLIC_TYPE = re.compile(r"^public\s+(?:(?:final|abstract|sealed|non-sealed|strictfp)\s+)*(?:class|interface|record|enum|@interface)\s+(\w+)", re.M)


def package_and_type(name):
    """dev.ratelimit.rules.internal.RuleBudgets.Budget -> (dev.ratelimit.web.internal, RuleBudgets)"""
    parts = name.split(".")
    for i, part in enumerate(parts):
        if part[:1].isupper():
            return ".".join(parts[:i]), part
    return ".".join(parts[:-1]), parts[-1]


modules = sorted(d for d in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, d, "src", "main", "java")))
files = []  # (module, package, type, path, text)
for module in modules:
    base = os.path.join(ROOT, module, "src", "main", "java")
    for directory, _, names in os.walk(base):
        for name in names:
            if name.endswith(".java"):
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                found = PACKAGE.search(text)
                files.append((module, found.group(1) if found else "", name[:-5], path, text))

print("== modules: main lines, files, public top-level types")
total = sum(t.count("\n") for *_, t in files)
for module in modules:
    mine = [f for f in files if f[0] == module]
    lines = sum(t.count("\n") for *_, t in mine)
    public = sum(1 for *_, t in mine if PUBLIC_TYPE.search(t))
    print(f"{module:40} {lines:6} lines ({100 * lines / total:4.1f} %) {len(mine):4} files {public:4} public types")
print(f"{'total':40} {total:6} lines")

owner = {(p, n): m for m, p, n, _, _ in files}
public_types = {(p, n) for m, p, n, _, t in files if PUBLIC_TYPE.search(t) and n in PUBLIC_TYPE.findall(t)}
edges = defaultdict(set)
internal_users = defaultdict(set)  # internal type -> packages of main files outside its package that import it
for module, package, _, _, text in files:
    for imported in IMPORT.findall(text):
        target, type_name = package_and_type(imported)
        if (target, type_name) not in owner or target == package:
            continue
        edges[package].add(target)
        if target.endswith(".internal") or ".internal." in target:
            internal_users[(target, type_name)].add(package)

print("\n== internal packages: public types, and those imported by main code of another package")
internal_packages = sorted({p for _, p, *_ in files if p.endswith(".internal")})
for package in internal_packages:
    public = sorted(n for p, n in public_types if p == package)
    print(f"{package:40} {len(public):3} public types")
print(f"{'all internal packages':40} {sum(1 for p, _ in public_types if p.endswith('.internal')):3} public types")
used = sorted(internal_users)
print(f"internal types imported outside their package: {len(used)} (by {len({u for us in internal_users.values() for u in us})} packages)")
outside_family = sorted(t for t, users in internal_users.items()
                        if any(not u.startswith(t[0].rsplit('.', 1)[0]) for u in users))
print(f"  of which outside their parent package's tree: {len(outside_family)}")
for package, type_name in used:
    users = sorted(internal_users[(package, type_name)])
    print(f"  {package}.{type_name}  <-  {', '.join(u.replace('dev.ratelimit.', '') for u in users)}")
modules_of = defaultdict(set)
for m, p, *_ in files:
    modules_of[p].add(m)
cross_module = sorted(t for t, users in internal_users.items() if any(modules_of[u] != modules_of[t[0]] for u in users))
print(f"internal types imported by main code of another module: {len(cross_module)}")

# Tarjan's strongly connected components, then the elementary cycles inside them (Johnson, small graphs)
index, low, stack, on_stack, sccs, counter = {}, {}, [], set(), [], [0]
nodes = sorted(set(edges) | {t for ts in edges.values() for t in ts})


def strongconnect(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on_stack.add(v)
    for w in sorted(edges[v]):
        if w not in index:
            strongconnect(w)
            low[v] = min(low[v], low[w])
        elif w in on_stack:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        component = []
        while True:
            w = stack.pop()
            on_stack.discard(w)
            component.append(w)
            if w == v:
                break
        if len(component) > 1:
            sccs.append(sorted(component))


sys.setrecursionlimit(10000)
for v in nodes:
    if v not in index:
        strongconnect(v)


def elementary_cycles(component):
    cycles = []
    order = sorted(component)
    for i, start in enumerate(order):
        allowed = set(order[i:])

        def walk(v, path):
            for w in sorted(edges[v]):
                if w == start:
                    cycles.append(path[:])
                elif w in allowed and w not in path and w > start:
                    path.append(w)
                    walk(w, path)
                    path.pop()

        walk(start, [start])
    return cycles


print("\n== package cycles (imports between main packages)")
all_cycles = [c for component in sccs for c in elementary_cycles(component)]
print(f"strongly connected groups of packages: {len(sccs)}; elementary cycles: {len(all_cycles)}; "
      f"two-package cycles: {sum(1 for c in all_cycles if len(c) == 2)}")
for component in sccs:
    print("  group: " + ", ".join(p.replace("dev.ratelimit.", "") for p in component))
for cycle in all_cycles:
    if len(cycle) == 2:
        print("  " + " <-> ".join(p.replace("dev.ratelimit.", "") for p in cycle))
