"""Reading simtlab's JSON outputs with the standard library only, every problem reported as a
SimtlabDataError that names the file and the field.

- read_json(path): a whole JSON file (json.load).
- iter_kernels(path, keys): the kernel entries of a stats file (`simtlab run --stats`) one at a
  time, keeping only `keys` of each, with memory bounded by one kept entry rather than the file:
  the file is read in 1 MiB pieces by a small incremental parser; the subtrees not kept
  (per-kernel `stats`, `intervals`, the run's `config`, ...) are skipped without building them,
  and arrays of integers (the per-instruction columns of `attribution`) are built as
  array('q') (8 bytes per number) instead of lists of ints. json.load of the same file holds
  the whole text and every value as a Python object: about 5-10x the file's size.
- attribution_tables(kernel, where): the per-instruction statistics of a kernel entry, checked.
- read_plan(dir), read_status(dir, run_id): a sweep's plan.json and a run's status.json.
"""
import array
import json
import os
import re
from json.decoder import scanstring

from .errors import MissingFile, SimtlabDataError

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
# Everything up to the next bracket, complete strings included (one C call per bracket when
# skipping a subtree).
_TO_BRACKET = re.compile(r'(?:[^"\[\]{}]+|"[^"\\]*(?:\\.[^"\\]*)*")*')
_INT_SEGMENT = re.compile(r"[-0-9, \t\n\r]*")
_CHUNK = 1 << 20


def read_json(path, what="file"):
    """A JSON file as Python objects; SimtlabDataError (MissingFile when absent) naming `path`
    when it cannot be read or parsed."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise MissingFile(f"{path}: missing ({what})") from None
    except json.JSONDecodeError as e:
        size = os.path.getsize(path)
        why = ("it ends in the middle of a value; truncated?" if e.pos >= size - 1 and size
               else "empty file" if not size else f"{e.msg} at line {e.lineno}, column {e.colno}")
        raise SimtlabDataError(f"{path}: not valid JSON ({why})") from None
    except (OSError, UnicodeDecodeError) as e:
        raise SimtlabDataError(f"{path}: cannot be read ({e})") from None


class _Reader:
    """An incremental JSON parser over a text file, holding one piece of it at a time."""

    def __init__(self, f, path):
        self.f, self.path = f, path
        self.buf, self.pos, self.base, self.eof = "", 0, 0, False

    def error(self, what):
        return SimtlabDataError(f"{self.path}: not valid JSON at character "
                                f"{self.base + self.pos}: {what}")

    def truncated(self):
        return SimtlabDataError(f"{self.path}: not valid JSON: it ends (at character "
                                f"{self.base + len(self.buf)}) in the middle of a value; "
                                "truncated?")

    def more(self):
        """Read the next piece (dropping what was consumed); False at the end of the file."""
        if self.eof:
            return False
        data = self.f.read(_CHUNK)
        if not data:
            self.eof = True
            return False
        self.base += self.pos
        self.buf = self.buf[self.pos:] + data
        self.pos = 0
        return True

    def peek(self):
        """The next non-blank character ('' at the end of the file)."""
        while True:
            self.pos = _WS.match(self.buf, self.pos).end()
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.more():
                return ""

    def expect(self, ch):
        if self.peek() != ch:
            if self.peek() == "":
                raise self.truncated()
            raise self.error(f"expected '{ch}'")
        self.pos += 1

    def string(self):
        while True:
            m = _STRING.match(self.buf, self.pos)
            if m:
                try:
                    s, self.pos = scanstring(self.buf, self.pos + 1)
                except ValueError as e:
                    raise self.error(str(e)) from None
                return s
            if not self.more():
                raise self.truncated()

    def scalar(self):
        c = self.peek()
        if c == "":
            raise self.truncated()
        for word, value in (("true", True), ("false", False), ("null", None)):
            if c == word[0]:
                while len(self.buf) - self.pos < len(word) and self.more():
                    pass
                if self.buf.startswith(word, self.pos):
                    self.pos += len(word)
                    return value
                raise self.error("expected a value")
        while True:
            m = _NUMBER.match(self.buf, self.pos)
            if m and m.end() == len(self.buf) and self.more():
                continue  # the number may go on in the next piece
            if not m:
                raise self.error("expected a value")
            self.pos = m.end()
            t = m.group()
            return int(t) if t.lstrip("-").isdigit() else float(t)

    def value(self):
        c = self.peek()
        if c == "{":
            return self.obj()
        if c == "[":
            return self.arr()
        if c == '"':
            return self.string()
        return self.scalar()

    def obj(self, keep=None):
        """An object; with `keep` only those keys (the values of the others skipped)."""
        self.expect("{")
        d = {}
        if self.peek() == "}":
            self.pos += 1
            return d
        while True:
            if self.peek() != '"':
                raise self.truncated() if self.peek() == "" else self.error("expected a key")
            k = self.string()
            self.expect(":")
            if keep is None or k in keep:
                d[k] = self.value()
            else:
                self.skip()
            c = self.peek()
            self.pos += 1
            if c == "}":
                return d
            if c != ",":
                self.pos -= 1
                raise self.truncated() if c == "" else self.error("expected ',' or '}'")

    def _int_run(self):
        """Integers of the array being read, while the text is only integers and commas:
        (array or list, finished). Not finished: self.pos is at the next element."""
        out = array.array("q")
        while True:
            end = self.buf.find("]", self.pos)
            cut = end if end >= 0 else self.buf.rfind(",", self.pos)
            if cut < self.pos:
                if not self.more():
                    raise self.truncated()
                continue
            seg = self.buf[self.pos:cut]
            if not _INT_SEGMENT.fullmatch(seg):
                return out, False
            try:
                nums = json.loads("[" + seg + "]")  # only integers (the pattern), C speed
            except ValueError:
                return out, False
            try:
                out.extend(nums)
            except OverflowError:
                out = list(out) + nums
            self.pos = cut + 1
            if end >= 0:
                return out, True
            if self.peek() == "":
                raise self.truncated()

    def arr(self):
        self.expect("[")
        c = self.peek()
        if c == "]":
            self.pos += 1
            return []
        items = []
        if c == "-" or c.isdigit():
            ints, done = self._int_run()
            if done:
                return ints
            items = list(ints)
        while True:
            items.append(self.value())
            c = self.peek()
            self.pos += 1
            if c == "]":
                return items
            if c != ",":
                self.pos -= 1
                raise self.truncated() if c == "" else self.error("expected ',' or ']'")

    def skip(self):
        """Pass over one value without building it."""
        c = self.peek()
        if c not in ("{", "["):
            self.value()
            return
        depth = 0
        while True:
            self.pos = _TO_BRACKET.match(self.buf, self.pos).end()
            if self.pos == len(self.buf) or self.buf[self.pos] == '"':
                # the end of this piece, or a string it cuts
                if not self.more():
                    raise self.truncated()
                continue
            depth += 1 if self.buf[self.pos] in "[{" else -1
            self.pos += 1
            if depth == 0:
                return


def iter_kernels(path, keys=None):
    """The kernel entries of a stats file, one at a time, each with only `keys` (all when
    None); arrays of integers are array('q'). Raises SimtlabDataError (MissingFile) naming the
    file when it is missing, not valid JSON, has no "kernels" list, or has fewer entries than
    its totals.launches (a file cut short) -- possibly after yielding the entries before the
    problem."""
    try:
        f = open(path, encoding="utf-8")
    except FileNotFoundError:
        raise MissingFile(f"{path}: missing (stats file)") from None
    except OSError as e:
        raise SimtlabDataError(f"{path}: cannot be read ({e})") from None
    with f:
        r = _Reader(f, path)
        try:
            if r.peek() != "{":
                raise r.error("expected '{' (a stats file is a JSON object)") if r.peek() \
                    else SimtlabDataError(f"{path}: empty file")
            r.pos += 1
            n, launches = None, None
            while r.peek() != "}":
                k = r.string()
                r.expect(":")
                if k == "kernels":
                    r.expect("[")
                    n = 0
                    if r.peek() == "]":
                        r.pos += 1
                    else:
                        while True:
                            if r.peek() != "{":
                                raise r.truncated() if r.peek() == "" else \
                                    r.error(f"kernels[{n}] is not an object")
                            yield r.obj(keys)
                            n += 1
                            c = r.peek()
                            r.pos += 1
                            if c == "]":
                                break
                            if c != ",":
                                r.pos -= 1
                                raise r.truncated() if c == "" else r.error("expected ',' or ']'")
                elif k == "totals":
                    t = r.value()
                    launches = t.get("launches") if isinstance(t, dict) else None
                else:
                    r.skip()
                c = r.peek()
                if c == ",":
                    r.pos += 1
                elif c != "}":
                    raise r.truncated() if c == "" else r.error("expected ',' or '}'")
            r.pos += 1
            if r.peek() != "":
                raise r.error("text after the end of the JSON object")
        except UnicodeDecodeError as e:
            raise SimtlabDataError(f"{path}: cannot be read ({e})") from None
    if n is None:
        raise SimtlabDataError(f"{path}: no \"kernels\" list (not a stats file of simtlab run)")
    if isinstance(launches, int) and launches != n:
        raise SimtlabDataError(f"{path}: {n} kernel entries but totals.launches says {launches}; "
                               "the file is incomplete")


REASONS = ["mem_pipeline", "collector_full", "unit_busy", "scoreboard", "barrier", "control",
           "fetch", "throttled"]
# Columns every attribution table has (docs/outputs.md), and those of each table.
_COMMON = ["execs", "stall_total", "sb_mem", "sb_alu", "l1_misses", "l2_misses"]
_TABLE = {"lines": ["file", "line"], "instructions": ["pc", "ptx_line", "text", "file", "line"]}


def attribution_tables(k, where):
    """The checked `attribution` of a kernel entry (None when it has none): files, lines,
    instructions, each table a dict of equally long columns. `where` names the entry in
    messages ("run.json: kernels[3]")."""
    a = k.get("attribution")
    if a is None:
        return None
    w = f"{where}.attribution"
    if not isinstance(a, dict):
        raise SimtlabDataError(f"{w}: not an object")
    files = a.get("files")
    if not isinstance(files, list) or not all(isinstance(x, str) for x in files):
        raise SimtlabDataError(f"{w}.files: missing or not a list of strings")
    for name, cols in _TABLE.items():
        t = a.get(name)
        if not isinstance(t, dict):
            raise SimtlabDataError(f"{w}.{name}: missing or not an object")
        n = None
        for c in cols + _COMMON + [c for c in t if c.startswith("stall_")]:
            v = t.get(c)
            if not isinstance(v, (list, array.array)):
                raise SimtlabDataError(f"{w}.{name}: missing field '{c}' (a list)")
            if n is None:
                n = len(v)
            elif len(v) != n:
                raise SimtlabDataError(f"{w}.{name}.{c}: {len(v)} entries, "
                                       f"{cols[0]} has {n}")
        for i, f in enumerate(t["file"]):
            if not isinstance(f, int) or not 0 <= f < max(1, len(files)):
                raise SimtlabDataError(f"{w}.{name}.file[{i}]: {f!r} is not an index into "
                                       f"files ({len(files)} entries)")
    return a


def read_plan(directory):
    """A sweep's plan.json, checked (runs with id, workload, variant, rep; variants with name,
    gpu, mode)."""
    path = os.path.join(directory, "plan.json")
    try:
        plan = read_json(path, "the sweep's plan")
    except MissingFile:
        raise MissingFile(f"{path}: missing ({directory} holds no sweep; run `simtlab sweep run "
                          f"EXP.yaml --out {directory}` first)") from None
    if not isinstance(plan, dict):
        raise SimtlabDataError(f"{path}: not a JSON object")
    runs = plan.get("runs")
    if not isinstance(runs, list):
        raise SimtlabDataError(f"{path}: runs: missing or not a list")
    for i, r in enumerate(runs):
        if not isinstance(r, dict):
            raise SimtlabDataError(f"{path}: runs[{i}]: not an object")
        for k in ("id", "workload", "variant"):
            if not isinstance(r.get(k), str):
                raise SimtlabDataError(f"{path}: runs[{i}].{k}: missing or not a string")
        if not isinstance(r.get("rep", 0), int):
            raise SimtlabDataError(f"{path}: runs[{i}].rep: not an integer")
    for i, v in enumerate(plan.get("variants", [])):
        for k in ("name", "gpu", "mode"):
            if not isinstance(v, dict) or not isinstance(v.get(k), str):
                raise SimtlabDataError(f"{path}: variants[{i}].{k}: missing or not a string")
    return plan


def read_status(directory, run_id):
    """A run's status.json (written by `simtlab sweep exec` when the run ends), checked; None
    when the run has none (not run yet)."""
    path = os.path.join(directory, "runs", run_id, "status.json")
    try:
        st = read_json(path, "run status")
    except MissingFile:
        return None
    if not isinstance(st, dict):
        raise SimtlabDataError(f"{path}: not a JSON object")
    if not isinstance(st.get("status"), str):
        raise SimtlabDataError(f"{path}: status: missing or not a string")
    return st
