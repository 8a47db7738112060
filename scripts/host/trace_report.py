#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host syscalls of ./linux inside and outside the freeze windows ("make trace").

Reads the strace log of the main UML process (strace -ttt, one process, no
-f) that scripts/host/trace.sh records.  The guest job scripts/guest/jobs/trace-job.sh
prints markers on its console, and the UML console is the kernel's own
write() on the host, so the markers are in this same log:

  TODO-FREEZE-BEGIN todo ... TODO-FREEZE-END todo STATUS      (one freeze)
  TODO-FREEZE-BEGIN classic ... TODO-FREEZE-END classic STATUS
  TODO-IDLE-BEGIN ... TODO-IDLE-END                 (the guest in sleep 1)

The console text is rebuilt from the write() calls (the tty layer writes a
line and its "\\r\\n" separately), and a window runs from the end of the
BEGIN line to the start of the END line, so the markers' own writes fall
outside it.  Every syscall and signal is counted in the window it started
in, or as "outside" (the rest of the trace: boot, the guest's shell work,
power-off).  Counts per second make windows of different lengths
comparable.  Writes to --out:

  summary.txt   the tables (also printed): the windows, the counts per
                syscall and signal (those seen only outside the windows in
                one row), the phases of each freeze, and the console lines
                inside each window with their offsets
  summary.csv   name,kind,WINDOW_n,WINDOW_per_s,... per syscall or signal
  windows.csv   window,start_s,seconds,events,status; also one row per
                phase of a freeze (todo/freeze, todo/hold, todo/thaw, ...)

The phases split a freeze window at the kernel's own console lines: "freeze"
up to "PM: suspend debug: Waiting for N second(s)." (the tasks are frozen
by then), "hold" the pm_test_delay busy wait (mdelay()) up to the next
console line, "thaw" the rest (thaw, "Restarting tasks ... done.").

Python standard library only.  Re-run on a saved log:
  scripts/host/trace_report.py --strace build/trace/strace.log --out build/trace
"""
import argparse
import csv
import os
import re
import sys
import textwrap
from collections import Counter

FREEZERS = ('todo', 'classic')
WINDOWS = FREEZERS + ('idle',)
COLUMNS = WINDOWS + ('outside',)

TS_RE = re.compile(r'^(\d+\.\d+) (.*)$')
SYSCALL_RE = re.compile(r'^([a-z_][a-z0-9_]*)\(')
SIGNAL_RE = re.compile(r'^--- (SIG[A-Z0-9+]+|\S+) ')
WRITE_RE = re.compile(r'^write\((\d+), "((?:[^"\\]|\\.)*)"(\.\.\.)?, \d+\)\s+= (-?\d+)')
HOLD_RE = re.compile(r'suspend debug: Waiting for')
MARKER_RE = re.compile(r'^TODO-(FREEZE|IDLE)-(BEGIN|END)(?: (\S+))?(?: (-?\d+))?\s*$')
# A backslash and what it quotes: \x and up to two characters, up to three
# octal digits, or any one character (a lone backslash at the end stays).
ESCAPE_RE = re.compile(r'\\(x.{0,2}|[0-7]{1,3}|.)')
ESCAPES = {'n': '\n', 'r': '\r', 't': '\t', 'v': '\v', 'f': '\f', 'a': '\a', 'b': '\b'}


def unescape(s):
    """Undo strace's C-style quoting of a buffer (octal and \\x escapes)."""
    def one(m):
        e = m[1]
        if e[0] == 'x':
            return chr(int(e[1:], 16))
        if e[0] in '01234567':
            return chr(int(e, 8))
        return ESCAPES.get(e, e)
    return ESCAPE_RE.sub(one, s)


def console_lines(writes):
    """The text of the writes [(t, fd, data)] to each fd, as lines (t_first, t_last,
    fd, text) with the times of the write that began them and of the one that ended them."""
    lines, partial = [], {}     # partial: fd -> (text so far, time of its first write)
    for t, fd, data in writes:
        text, t_first = partial.get(fd, ('', None))
        for ch in data:
            if t_first is None:
                t_first = t
            if ch == '\n':
                lines.append((t_first, t, fd, text.replace('\r', '')))
                text, t_first = '', None
            else:
                text += ch
        partial[fd] = (text, t_first)
    return lines


def parse(path):
    events = []           # (t, name, kind)
    writes = []           # (t, fd, data) of the write()s that wrote something
    with open(path, errors='replace') as f:
        for raw in f:
            m = TS_RE.match(raw.rstrip('\n'))
            if not m:
                continue
            t, rest = float(m[1]), m[2]
            # "<... NAME resumed>" and "+++ exited +++" match neither: a
            # syscall is counted where it started.
            if s := SIGNAL_RE.match(rest):
                events.append((t, s[1], 'signal'))
            elif c := SYSCALL_RE.match(rest):
                events.append((t, c[1], 'syscall'))
                w = WRITE_RE.match(rest)
                if w and int(w[4]) > 0:
                    writes.append((t, int(w[1]), unescape(w[2])[:int(w[4])]))
    return events, console_lines(writes)


def find_windows(lines):
    """{window: dict(start, end, status)} from the marker lines; errors."""
    begins, windows, errors = {}, {}, []
    for t_first, t_last, _fd, text in lines:
        m = MARKER_RE.match(text)
        if not m:
            continue
        name = 'idle' if m[1] == 'IDLE' else (m[3] or '?')
        if m[2] == 'BEGIN':
            begins[name] = t_last
        elif name in begins:
            windows[name] = dict(start=begins.pop(name), end=t_first,
                                 status=int(m[4]) if m[4] else 0)
        else:
            errors.append(f'{text!r} without a BEGIN marker')
    for name in begins:
        errors.append(f'window {name}: BEGIN marker without an END marker')
    return windows, errors


def console_in(lines, a, b):
    """[(time, text)] of the non-blank console lines begun inside (a, b)."""
    return [(t1, text) for t1, _t2, _fd, text in lines if a < t1 < b and text.strip()]


def phases(window, lines):
    """[(phase, start, end)] of a freeze window, from its console lines."""
    a, b = window
    inside = console_in(lines, a, b)
    hold = [t for t, text in inside if HOLD_RE.search(text)]
    after = [t for t, _text in inside if hold and t > hold[0]]
    if not after:
        return []
    return [('freeze', a, hold[0]), ('hold', hold[0], after[0]), ('thaw', after[0], b)]


def top(counter, k=5):
    items = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
    return ', '.join(f'{n} {v}' for n, v in items[:k])


def rate(n, secs):
    return n / secs if secs > 0 else 0.0


def report(args):
    events, lines = parse(args.strace)
    if not events:
        sys.exit(f'error: no strace events in {args.strace} (is it a strace -ttt log?)')
    windows, errors = find_windows(lines)
    errors += [f'no freeze window for the {name} freezer: its TODO-FREEZE-BEGIN/END '
               f'markers are not among the console writes in {args.strace}'
               for name in FREEZERS if name not in windows]
    first, last = events[0][0], events[-1][0]
    spans = {w: (windows[w]['start'], windows[w]['end']) for w in WINDOWS if w in windows}
    counts = {c: Counter() for c in COLUMNS}
    kinds = {name: kind for _t, name, kind in events}
    for t, name, _kind in events:
        col = next((w for w, (a, b) in spans.items() if a < t < b), 'outside')
        counts[col][name] += 1
    secs = {w: b - a for w, (a, b) in spans.items()}
    secs['outside'] = (last - first) - sum(secs.values())
    cols = [c for c in COLUMNS if c in secs]
    for w in FREEZERS:
        if w in windows and not counts[w]:
            errors.append(f'the {w} freeze window holds no host syscalls')
        if w in windows and windows[w]['status'] != 0:
            errors.append(f'the freeze with the {w} freezer failed in the guest '
                          f'(status {windows[w]["status"]})')

    names = sorted(kinds, key=lambda n: (kinds[n] != 'syscall', -sum(counts[w][n] for w in FREEZERS),
                                         -counts['outside'][n], n))
    label = {n: (n if kinds[n] == 'syscall' else f'signal {n}') for n in names}
    width = max([len(v) for v in label.values()] + [16])
    mode = f', strace {args.mode} mode' if args.mode else ''
    shown = os.path.relpath(args.strace)
    if shown.startswith('..'):
        shown = args.strace
    out = [f'Host syscalls of the main UML process during a freeze ({shown}{mode})',
           f'trace: {last - first:.3f} s, {len(events)} events (syscalls and signals)',
           '',
           f'{"window":<10} {"start s":>8} {"seconds":>8} {"events":>7} {"events/s":>9}  status']
    for c in cols:
        n = sum(counts[c].values())
        start = f'{spans[c][0] - first:8.3f}' if c in spans else f'{"-":>8}'
        status = str(windows[c]['status']) if c in windows else '-'
        out.append(f'{c:<10} {start} {secs[c]:8.3f} {n:7d} {rate(n, secs[c]):9.1f}  {status}')
    head1 = f'{"":<{width}}' + ''.join(f' | {c:^16}' for c in cols)
    head2 = f'{"syscall":<{width}}' + ''.join(f' | {"n":>7} {"/s":>8}' for _ in cols)
    out += ['', head1, head2, '-' * len(head2)]

    def row(lbl, get):
        cells = ''.join(f' | {get(c):7d} {rate(get(c), secs[c]):8.1f}' for c in cols)
        return f'{lbl:<{width}}{cells}'

    only_out = [n for n in names if all(not counts[c][n] for c in cols if c != 'outside')]
    for n in names:
        if n not in only_out:
            out.append(row(label[n], lambda c, n=n: counts[c][n]))
    if only_out:
        out.append(row(f'{len(only_out)} others', lambda c: sum(counts[c][n] for n in only_out)))
    out.append('-' * len(head2))
    for kind, lbl in (('syscall', 'all syscalls'), ('signal', 'all signals')):
        out.append(row(lbl, lambda c, k=kind: sum(v for n, v in counts[c].items()
                                                   if kinds[n] == k)))
    if only_out:
        out += textwrap.wrap(', '.join(only_out), width=len(head2),
                             initial_indent='  others, only outside the windows: ',
                             subsequent_indent='    ')
    phase_rows = []
    for w in [w for w in FREEZERS if w in spans]:
        split = phases(spans[w], lines)
        if not split:
            out.append(f'(no phases for {w}: no "suspend debug: Waiting" console line)')
            continue
        if not phase_rows:
            out += ['', 'phases of each freeze (split at the console lines "PM: suspend debug: '
                    'Waiting ..." and the next one):',
                    f'{"window":<10} {"phase":<7} {"seconds":>8} {"events":>7} '
                    f'{"events/s":>9}  most frequent']
        for phase, a, b in split:
            c = Counter(name if kind == 'syscall' else f'signal {name}'
                        for t, name, kind in events if a <= t < b)
            n = sum(c.values())
            out.append(f'{w:<10} {phase:<7} {b - a:8.3f} {n:7d} {rate(n, b - a):9.1f}  {top(c)}')
            phase_rows.append((f'{w}/{phase}', a - first, b - a, n))
    for w, (a, b) in spans.items():     # in the order of WINDOWS
        out += ['', f'console inside the {w} window ({b - a:.3f} s), offsets from its start:']
        inside = console_in(lines, a, b)
        for t1, text in inside:
            out.append(f'  +{(t1 - a) * 1000:9.1f} ms  {text}')
        if not inside:
            out.append('  (nothing)')
    if errors:
        out += [''] + [f'error: {e}' for e in errors]
    text = '\n'.join(out) + '\n'
    sys.stdout.write(text)

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, 'summary.txt'), 'w') as f:
        f.write(text)
    with open(os.path.join(args.out, 'summary.csv'), 'w', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(['name', 'kind'] + [f'{c}_{x}' for c in cols for x in ('n', 'per_s')])
        for n in names:
            w.writerow([n, kinds[n]] + [v for c in cols for v in
                                        (counts[c][n], f'{rate(counts[c][n], secs[c]):.1f}')])
    with open(os.path.join(args.out, 'windows.csv'), 'w', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(['window', 'start_s', 'seconds', 'events', 'status'])
        for c in cols:
            w.writerow([c, f'{spans[c][0] - first:.6f}' if c in spans else '',
                        f'{secs[c]:.6f}', sum(counts[c].values()),
                        windows[c]['status'] if c in windows else ''])
        for name, start, length, n in phase_rows:
            w.writerow([name, f'{start:.6f}', f'{length:.6f}', n, ''])
    return 1 if errors else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--strace', required=True, help='strace -ttt log of the main UML process')
    ap.add_argument('--out', required=True, help='directory for summary.txt/.csv, windows.csv')
    ap.add_argument('--mode', default='', help='"start" or "attach", for the title')
    sys.exit(report(ap.parse_args()))


if __name__ == '__main__':
    main()
