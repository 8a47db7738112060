#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the console log of a bench boot ("make bench") into results.

Reads the "BENCH ..." lines that tests/guest/bench_freeze prints, and the
bytes the series adds to struct task_struct from the DWARF of vmlinux
(pahole, else gdb).  Writes to --out:

  results.csv   one row per freeze (and per floor run), as measured
  summary.csv   per kind, N and freezer: median/min/max, per task, ratios
                (latencies, then the return times)
  alloc.csv     allocations per task per freeze and thaw, per freezer
  how.csv       per kind, N and freezer: how the user tasks were frozen
                (medians per freeze: item, in place, refrigerator)
  table.txt     the tables (also printed), memory and the targets
  latency.gp    the gnuplot script for latency.png, with plot-KIND.dat

Python standard library only.  Re-run on a saved log without booting:
  scripts/host/bench_report.py --log build/bench/console.log --out build/bench
"""
import argparse
import csv
import os
import re
import shutil
import statistics
import subprocess
import sys

KINDS = {
    'spin': 'user-space spinners (busy loop)',
    'pause': 'interruptible sleep in pause()',
    'pipe': 'interruptible sleep in read() of an empty pipe',
    'nanosleep': 'freezable sleep in nanosleep() (classic freezes it in place)',
    'threads': 'threads of one process, each in pause()',
    'uring': 'io_uring SQPOLL threads, which never return to user space',
    'cgroup2': 'pause() in a frozen cgroup v2 (both freezers freeze them in place)',
}
KIND_ORDER = list(KINDS)
FREEZERS = ('todo', 'classic')
# Kinds the "spinners and interruptible sleepers" target covers (docs/bench.md).
INTERRUPTIBLE = ('spin', 'pause', 'pipe', 'threads')
# Fields of struct task_struct the series adds.
FIELDS = ('todo', 'freeze_todo', 'freeze_todo_gen', 'freeze_todo_in_place')
MAX_ADDED_BYTES = 16

# The return times are optional: logs from before them lack both fields.
POINT_RE = re.compile(r'^BENCH kind=(\S+) n=(\d+) freezer=(\S+) rep=(\d+) '
                      r'freeze_ns=(\d+) thaw_ns=(\d+) frozen=(\d+) left=(\d+)'
                      r'(?: freeze_ret_ns=(-?\d+) thaw_ret_ns=(-?\d+))?\s*$')
# POINT_RE's groups, also the columns of results.csv; all but kind and freezer
# are ints, the return times None when unknown (absent, or -1 from the kernel).
POINT_KEYS = ('kind', 'n', 'freezer', 'rep', 'freeze_ns', 'thaw_ns', 'frozen', 'left',
              'freeze_ret_ns', 'thaw_ret_ns')
# What summary.csv and table.txt give median/min/max of: the latencies, then
# the return times (until freeze_processes() decided, thaw_processes() had
# woken or walked every task).
LATENCIES = ('freeze', 'thaw')
RETURNS = ('freeze_ret', 'thaw_ret')
FLOOR_RE = re.compile(r'^BENCH floor n=(\d+) rep=(\d+) ns=(\d+)\s*$')
KV_RE = re.compile(r'(\w+)=(\S+)')
# "BENCH WORD k=v ..." lines kept as dicts: the list of parse_log() each goes to.
KV_LISTS = {'how': 'how', 'alloc': 'alloc', 'alloc-site': 'sites', 'skip': 'skips',
            'clock': 'clocks'}


def point_value(key, text):
    """@text as POINT_KEYS says: a str, an int, or None for an unknown return time."""
    if key in ('kind', 'freezer'):
        return text
    return None if text is None or int(text) < 0 else int(text)


def parse_log(path):
    data = dict(points=[], floor=[], alloc=[], how=[], sites=[], skips=[], clocks=[], errors=[],
                info={}, end=None)
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\r\n')
            if not line.startswith('BENCH '):
                continue
            m = POINT_RE.match(line)
            if m:
                data['points'].append({k: point_value(k, v)
                                       for k, v in zip(POINT_KEYS, m.groups())})
                continue
            m = FLOOR_RE.match(line)
            if m:
                data['floor'].append(dict(n=int(m[1]), rep=int(m[2]), ns=int(m[3])))
                continue
            word = (line.split() + [''])[1]
            kv = dict(KV_RE.findall(line))
            if word in ('how', 'alloc') and 'kind' not in kv:
                continue
            if word in KV_LISTS:
                data[KV_LISTS[word]].append(kv)
            elif word == 'error':
                data['errors'].append(line[len('BENCH error '):])
            elif word == 'info':
                data['info'].update(kv)
            elif word == 'end':
                data['end'] = kv
    return data


def stats(values):
    """median/min/max/reps of the known values (None: unknown), or None."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    # ns: a median of an even count is rounded to whole ns
    return dict(median=round(statistics.median(values)), min=min(values), max=max(values),
                reps=len(values))


def ratio(a, b):
    return a / b if a is not None and b else None


def summarise(data):
    """{(kind, n, freezer): stats of each of LATENCIES and RETURNS (None if
    unknown), extra}, floor {n: stats}."""
    groups = {}
    for p in data['points']:
        groups.setdefault((p['kind'], p['n'], p['freezer']), []).append(p)
    summ = {}
    for key, rows in groups.items():
        summ[key] = {what: stats([r[what + '_ns'] for r in rows]) for what in LATENCIES + RETURNS}
        summ[key]['extra'] = '%g' % statistics.median([r['frozen'] - key[1] for r in rows])
    floor = {n: stats([f['ns'] for f in data['floor'] if f['n'] == n])
             for n in sorted({f['n'] for f in data['floor']})}
    return summ, floor


# How a task was frozen: enum freeze_how of include/linux/freezer.h.  (Logs
# saved before it lost FROZEN_AT_CHECKPOINT also count "checkpoint": the
# todo freezer no longer freezes at a checkpoint without its item.)
HOW = ('item', 'in_place', 'refrigerator')


def how_summary(data):
    """{(kind, n, freezer): median count per freeze of each HOW, reps, share}."""
    groups = {}
    for h in data['how']:
        groups.setdefault((h['kind'], int(h['n']), h['freezer']), []).append(h)
    out = {}
    for key in sorted(groups, key=lambda k: (k[0], k[1], FREEZERS.index(k[2])
                                             if k[2] in FREEZERS else 9)):
        rows = groups[key]
        med = {k: '%g' % statistics.median(int(r[k]) for r in rows) for k in HOW}
        total = sum(float(med[k]) for k in HOW)
        med['item_share'] = '%.2f' % (float(med['item']) / total) if total else ''
        med['reps'] = len(rows)
        out[key] = med
    return out


def kinds_in(summ):
    seen = {k for (k, _, _) in summ if k != 'base'}
    return [k for k in KIND_ORDER if k in seen] + sorted(seen - set(KIND_ORDER))


def sizes_of(summ, kind):
    return sorted({n for (k, n, _) in summ if k == kind})


# The ratios on a todo row, in the order of summary.csv (RET_RATIOS after
# the older columns); the floor has no return time to compare with.
RATIOS = ('classic_freeze', 'classic_thaw', 'floor_freeze', 'floor_thaw')
RET_RATIOS = tuple('classic_' + what for what in RETURNS)


def median_of(s, what):
    """The median of @what in a summary entry @s, or None."""
    return s[what]['median'] if s and s.get(what) else None


def ratios(summ, floor, kind, n):
    """todo/classic of LATENCIES and RETURNS and todo/floor of LATENCIES, or None."""
    t, c, fl = summ.get((kind, n, 'todo')), summ.get((kind, n, 'classic')), floor.get(n)
    out = {}
    for what in LATENCIES + RETURNS:
        out['classic_' + what] = ratio(median_of(t, what), median_of(c, what))
    for what in LATENCIES:
        out['floor_' + what] = ratio(median_of(t, what), fl['median'] if fl else None)
    return out


def task_struct_fields(vmlinux):
    """{'source', 'size', 'fields': {name: (offset, size)}} from DWARF, or
    {'error': why}."""
    if not vmlinux or not os.path.exists(vmlinux):
        return dict(error='no vmlinux at %s' % vmlinux)
    why = 'no pahole (Debian package dwarves)'
    if shutil.which('pahole'):
        try:
            out = subprocess.run(['pahole', '-C', 'task_struct', vmlinux], check=True,
                                 capture_output=True, text=True, timeout=300).stdout
        except (subprocess.SubprocessError, OSError):
            out = ''  # reported below as no field found
        found = {name: re.search(r'[\s*]%s;\s*/\*\s*(\d+)\s+(\d+)\s*\*/' % re.escape(name), out)
                 for name in FIELDS}
        fields = {name: (int(m[1]), int(m[2])) for name, m in found.items() if m}
        size = re.search(r'/\* size: (\d+),', out)
        if fields:
            return dict(source='pahole', size=int(size[1]) if size else None, fields=fields)
        why = 'pahole found no %s in struct task_struct' % '/'.join(FIELDS)
    if shutil.which('gdb'):
        try:
            out = subprocess.run(['gdb', '-batch', '-nx', '-ex', 'ptype/o struct task_struct',
                                  vmlinux], check=True, capture_output=True, text=True,
                                 timeout=600).stdout
        except (subprocess.SubprocessError, OSError) as e:
            return dict(error='%s; gdb failed: %s' % (why, e))
        fields, stack = {}, []
        for line in out.splitlines():
            m = re.match(r'\s*/\*\s*(\d+)(?::\s*\d+)?\s*\|\s*(\d+)\s*\*/\s*(.*)$', line)
            if m and m[3].rstrip().endswith('{'):
                stack.append((int(m[1]), int(m[2])))
                continue
            if m:
                name = re.search(r'(\w+)(\[\d*\])*;\s*$', m[3])
                if name and name[1] in FIELDS and not stack:
                    fields[name[1]] = (int(m[1]), int(m[2]))
                continue
            m = re.match(r'\s*}\s*(\w*);', line)
            if m and stack:
                off, size = stack.pop()
                if m[1] in FIELDS and not stack:
                    fields[m[1]] = (off, size)
        # the last total is the struct's own
        size = re.findall(r'total size \(bytes\):\s*(\d+)', out)
        if fields:
            return dict(source='gdb ptype/o', size=int(size[-1]) if size else None,
                        fields=fields)
        return dict(error='%s; gdb ptype/o shows no %s' % (why, '/'.join(FIELDS)))
    return dict(error=why + '; no gdb either')


def fmt_us(ns):
    return '%.1f' % (ns / 1e3)


def fmt_ratio(r):
    if r is None:
        return '-'
    return '%.2f' % r if r < 100 else '%.0f' % r


def write_csv(out, name, header, rows):
    with open(os.path.join(out, name), 'w', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(header)
        w.writerows(rows)


def stats_cells(st, n):
    """The median, min, max (ns) and us/task cells of summary.csv; empty if unknown."""
    if not st:
        return [''] * 4
    return [st['median'], st['min'], st['max'], '%.3f' % (st['median'] / 1e3 / n) if n else '']


def stats_header(what):
    return [what + '_median_ns', what + '_min_ns', what + '_max_ns', what + '_us_per_task']


# summary.csv: the older columns first, unchanged, the return times after them.
SUMMARY_HEADER = (['kind', 'n', 'freezer', 'reps'] + stats_header('freeze') + stats_header('thaw')
                  + ['todo_' + k for k in RATIOS] + ['extra_tasks']
                  + [c for what in RETURNS for c in stats_header(what)]
                  + ['todo_' + k for k in RET_RATIOS])


def todo_ratios(r, fz, keys, unknown=''):
    """The cells of ratios @keys of @r: only a todo row has them."""
    return ['' if fz != 'todo' else unknown if r[k] is None else fmt_ratio(r[k]) for k in keys]


def pad(row, header):
    return row + [''] * (len(header) - len(row))


def write_csvs(out, data, summ, floor):
    write_csv(out, 'results.csv', POINT_KEYS,
              [['' if p[k] is None else p[k] for k in POINT_KEYS] for p in data['points']] +
              [pad(['floor', f['n'], 'floor', f['rep'], f['ns']], POINT_KEYS)
               for f in data['floor']])
    rows = []
    for kind in ['base'] + kinds_in(summ):
        for n in sizes_of(summ, kind):
            r = ratios(summ, floor, kind, n)
            for fz in FREEZERS:
                s = summ.get((kind, n, fz))
                if not s:
                    continue
                rows.append([kind, n, fz, s['freeze']['reps']]
                            + stats_cells(s['freeze'], n) + stats_cells(s['thaw'], n)
                            + todo_ratios(r, fz, RATIOS) + [s['extra']]
                            + [c for what in RETURNS for c in stats_cells(s[what], n)]
                            + todo_ratios(r, fz, RET_RATIOS))
    rows += [pad(['floor', n, 'floor', s['reps']] + stats_cells(s, n), SUMMARY_HEADER)
             for n, s in floor.items()]
    write_csv(out, 'summary.csv', SUMMARY_HEADER, rows)
    write_csv(out, 'how.csv', ['kind', 'n', 'freezer', 'reps'] + list(HOW) + ['item_share'],
              [[kind, n, fz, h['reps']] + [h[k] for k in HOW] + [h['item_share']]
               for (kind, n, fz), h in how_summary(data).items()])
    write_csv(out, 'alloc.csv',
              ['kind', 'n', 'freezer', 'events', 'base_events', 'per_task', 'status'],
              [[a.get('kind'), a.get('n'), a.get('freezer'), a.get('events', ''),
                a.get('base', ''), a.get('per_task', ''), a.get('status', 'ok')]
               for a in data['alloc']])


def us_cols(st, n):
    """The median, min, max (us) and us/task columns of a row of table.txt."""
    return ' %10s %10s %10s %8.2f' % (fmt_us(st['median']), fmt_us(st['min']),
                                      fmt_us(st['max']), st['median'] / 1e3 / n)


def ret_cols(s):
    """The return-time medians (us) of a row of table.txt, '-' if unknown."""
    return ''.join(' %9s' % (fmt_us(s[what]['median']) if s[what] else '-') for what in RETURNS)


# The ratio columns of a todo row of table.txt: todo/classic (the return
# times with the latencies), then todo/floor.
TABLE_RATIOS = RATIOS[:2] + RET_RATIOS + RATIOS[2:]


def table(data, summ, floor, mem):
    info = data['info']
    L = ['Freezer bench: kernel %s, %s repetitions per freezer and point, alternating '
         'todo and classic in one boot' % (info.get('release', '?'), info.get('reps', '?')),
         'Latencies measured in the kernel (CONFIG_FREEZER_BENCH): freeze = '
         'freeze_processes() start to last user task frozen;',
         'thaw = thaw_processes() start to last user task out of the frozen state. '
         'Times in us; us/task = median / N.',
         'floor = waking N sleeping kernel threads one by one until each has run '
         '(the least per-task work a freezer that runs code in every task can do).',
         'fret/tret = freeze_processes() start until it found user space frozen (todo: woken by '
         'the last task; classic: at its next poll) /',
         'thaw_processes() start until it had woken or walked every task; medians, '
         '"-" where the kernel did not report them.',
         'Ratios (on todo rows): todo median / classic median (freeze, thaw, fret, tret), '
         'todo median / floor median (freeze, thaw) at the same N.']
    t, c = (summ.get(('base', 0, fz)) for fz in FREEZERS)
    if t and c:
        L.append('No extra tasks (the guest\'s own %s): freeze todo %s us, classic %s us; '
                 'thaw todo %s us, classic %s us (medians).' % (
                     t['extra'], fmt_us(t['freeze']['median']), fmt_us(c['freeze']['median']),
                     fmt_us(t['thaw']['median']), fmt_us(c['thaw']['median'])))
    hdr = ('%6s %-8s %4s | %10s %10s %10s %8s | %10s %10s %10s %8s | %9s %9s | %-31s | %-15s'
           % ('N', 'freezer', 'reps', 'freeze med', 'min', 'max', 'us/task',
              'thaw med', 'min', 'max', 'us/task', 'fret med', 'tret med',
              'todo/classic', 'todo/floor'))
    sub = ('%6s %-8s %4s | %10s %10s %10s %8s | %10s %10s %10s %8s | %9s %9s | %7s %7s %7s %7s'
           ' | %7s %7s' % (('',) * 13 + ('freeze', 'thaw', 'fret', 'tret', 'freeze', 'thaw')))
    for kind in kinds_in(summ):
        L += ['', '== %s: %s' % (kind, KINDS.get(kind, '')), hdr, sub]
        for n in sizes_of(summ, kind):
            r = ratios(summ, floor, kind, n)
            for fz in FREEZERS:
                s = summ.get((kind, n, fz))
                if not s:
                    L.append('%6d %-8s %4s | (no data)' % (n, fz, 0))
                    continue
                L.append('%6d %-8s %4d |%s |%s |%s | %7s %7s %7s %7s | %7s %7s' % (
                    n, fz, s['freeze']['reps'], us_cols(s['freeze'], n), us_cols(s['thaw'], n),
                    ret_cols(s), *todo_ratios(r, fz, TABLE_RATIOS, unknown='-')))
            if n in floor:
                L.append('%6d %-8s %4d |%s |' % (n, 'floor', floor[n]['reps'],
                                                 us_cols(floor[n], n)))
    for s in data['skips']:
        L.append('skipped: %s n=%s (%s)' % (s.get('kind'), s.get('n'), s.get('reason')))

    L += ['', '== memory']
    if 'error' in mem:
        L.append('struct task_struct: not read (%s)' % mem['error'])
        added = None
    else:
        added = sum(sz for _, sz in mem['fields'].values())
        L.append('struct task_struct (%s): %s; %d bytes added per task%s' % (
            mem['source'], ', '.join('%s %d bytes at offset %d' % (name, sz, off)
                                     for name, (off, sz) in sorted(mem['fields'].items())),
            added, ', struct size %d' % mem['size'] if mem.get('size') else ''))
    allocs = {}
    for a in data['alloc']:
        allocs.setdefault(a.get('kind'), {})[a.get('freezer')] = a
    for kind in [k for k in KIND_ORDER if k in allocs] + sorted(set(allocs) - set(KIND_ORDER)):
        a = allocs[kind]
        parts = ['%s not counted (%s)' % (fz, x['status']) if x.get('status') else
                 '%s %s (%s events, %s without the tasks)' % (
                     fz, x.get('per_task'), x.get('events'), x.get('base'))
                 for fz, x in ((fz, a.get(fz)) for fz in FREEZERS) if x]
        n = next(iter(a.values())).get('n')
        L.append('allocations per task per freeze+thaw, %s n=%s: %s' % (kind, n, '; '.join(parts)))
    for s in data['sites']:
        L.append('  extra allocations: %s %s n=%s: %s x%s' % (
            s.get('freezer'), s.get('kind'), s.get('n'), s.get('site'), s.get('extra')))

    L += clock_table(data['clocks'])
    hows = how_summary(data)
    if hows:
        L += ['', '== how the user tasks were frozen (median per freeze; how.csv)']
        L.append('%-10s %6s %-8s %6s %8s %12s %10s' % (
            ('kind', 'N', 'freezer') + HOW + ('item share',)))
        for (kind, n, fz), h in hows.items():
            L.append('%-10s %6d %-8s %6s %8s %12s %10s' % (
                (kind, n, fz) + tuple(h[k] for k in HOW) + (h['item_share'] or '-',)))
    L += ['', '== targets (reported, not asserted)'] + targets(summ, floor, data, added)
    if data['errors']:
        L += ['', '== errors in the guest'] + ['  ' + e for e in data['errors']]
    if data['end'] is None:
        L += ['', 'warning: the log has no "BENCH end" line: the bench did not finish']
    return '\n'.join(line.rstrip() for line in L) + '\n'


def clock_table(clocks):
    """Lines for the 'BENCH clock' lines: each clock's cost against ktime_get_ns()."""
    if not clocks:
        return []
    ref = next((int(c['read_ns']) for c in clocks if c.get('name') == 'ktime_get_ns'), None)
    L = ['', '== clock reads (KUnit suite um_time at boot; x = read / ktime_get_ns read)',
         '%-22s %14s %12s %8s' % ('clock', 'smallest step', 'one read', 'x')]
    for c in clocks:
        read = int(c['read_ns'])
        L.append('%-22s %11s ns %9s ns %8s' % (
            c['name'].replace('+', ' '),
            c['step_ns'], read, fmt_ratio(read / ref) if ref else '-'))
    return L


def measured(summ, floor, kinds, key, chosen=lambda kind, n: True):
    """[(ratio @key, kind, n)] at every point of @kinds that chosen() takes and
    where the ratio is known."""
    pts = [(ratios(summ, floor, k, n)[key], k, n)
           for k in kinds for n in sizes_of(summ, k) if chosen(k, n)]
    return [p for p in pts if p[0] is not None]


def targets(summ, floor, data, added):
    L = []

    def check(ok, text):
        L.append('%-7s %s' % ('n/a' if ok is None else 'met' if ok else 'MISSED', text))

    kinds = kinds_in(summ)
    worst = measured(summ, floor, kinds, 'classic_freeze', lambda k, n: k in INTERRUPTIBLE)
    if worst:
        r, k, n = max(worst)
        check(r <= 1.0, 'todo/classic freeze <= 1.0, spinners and interruptible sleepers, '
              'every N: worst %.2f (%s n=%d)' % (r, k, n))
        at = [(x, k, n) for x, k, n in worst if n == 1000]
        if at:
            r, k, n = max(at)
            check(r <= 0.9, 'todo/classic freeze <= 0.9 at N = 1000: worst %.2f (%s)' % (r, k))
        else:
            check(None, 'todo/classic freeze <= 0.9 at N = 1000: N = 1000 not measured')
    else:
        check(None, 'todo/classic freeze <= 1.0: no spinner or interruptible sleeper measured')
    every_kind_targets(summ, floor, kinds, check, data)
    return_targets(summ, floor, check, data)
    fl = measured(summ, floor, kinds, 'floor_freeze')
    if fl:
        r, k, n = max(fl)
        check(r <= 2.0, 'todo freeze within 2x the floor, every kind and N: worst %.2f '
              '(%s n=%d)' % (r, k, n))
    else:
        check(None, 'todo freeze within 2x the floor: no floor measured')
    ns = [(ratios(summ, floor, 'nanosleep', n)['classic_freeze'], n)
          for n in sizes_of(summ, 'nanosleep')]
    if ns:
        L.append('info    freezable sleep (nanosleep), which classic freezes in place without '
                 'waking: todo/classic freeze %s' % ', '.join(
                     '%s at n=%d' % (fmt_ratio(r), n) for r, n in ns))
    todo_alloc = [a for a in data['alloc'] if a.get('freezer') == 'todo']
    counted = [a for a in todo_alloc if 'per_task' in a]
    if counted:
        m = max(float(a['per_task']) for a in counted)
        check(round(m, 2) <= 0.0, '0 allocations per task per freeze (todo): at most %.2f' % m)
    else:
        why = todo_alloc[0].get('status', 'not run') if todo_alloc else 'not run'
        check(None, '0 allocations per task per freeze (todo): not counted (%s)' % why)
    check(None if added is None else added <= MAX_ADDED_BYTES,
          'at most %d bytes added to struct task_struct: %s'
          % (MAX_ADDED_BYTES, 'not read' if added is None else added))
    return L


# The targets: todo no slower than classic, freeze and thaw, every kind.
EVERY_KIND_LIMITS = (('N >= 100', lambda n: n >= 100, 1.0), ('N = 10', lambda n: n == 10, 1.1))


def classic_against_itself(data, kind, n, what):
    """The classic freezer's median over its odd reps divided by that over its
    even reps (they alternate with todo's in the same boot): how far apart two
    medians of one freezer come out at this point, or None.  Returned as the
    larger of r and 1/r."""
    reps = {}
    for p in data['points']:
        if (p['kind'], p['n'], p['freezer']) == (kind, n, 'classic') and \
                p[what + '_ns'] is not None:
            reps.setdefault(p['rep'] % 2, []).append(p[what + '_ns'])
    if len(reps) < 2 or not all(reps.values()):
        return None
    r = ratio(statistics.median(reps[1]), statistics.median(reps[0]))
    return max(r, 1 / r) if r else None


def every_kind_targets(summ, floor, kinds, check, data):
    """Report through check(): todo/classic medians within the limits, and
    every point that misses them, each with the classic freezer's spread
    against itself at that point (classic_against_itself())."""
    for what in LATENCIES:
        for label, chosen, limit in EVERY_KIND_LIMITS:
            ratio_target(summ, floor, check, data, what, kinds, chosen, limit,
                         'todo/classic %s <= %.1f, every kind, %s' % (what, limit, label))


# The aims on the return times (docs/bench.md): (what, kinds, chosen(n),
# limit, text).  A todo freeze of pipe or pause sleepers does not wait for a
# poll; the thaw of N = 4000 tasks frozen by their item (a broadcast)
# is no slower than classic's walk.
RETURN_LIMITS = (
    ('freeze_ret', ('pause', 'pipe'), lambda n: n >= 100, 0.8,
     'todo/classic freeze return <= 0.8, pause and pipe, every N >= 100'),
    ('thaw_ret', ('pause', 'pipe', 'threads'), lambda n: n == 4000, 1.0,
     'todo/classic thaw return <= 1.0 at N = 4000, pause, pipe and threads'))


def return_targets(summ, floor, check, data):
    for what, kinds, chosen, limit, text in RETURN_LIMITS:
        ratio_target(summ, floor, check, data, what, kinds, chosen, limit, text)


def ratio_target(summ, floor, check, data, what, kinds, chosen, limit, text):
    """Report through check() whether todo/classic of @what is at most @limit
    at every point of @kinds whose N chosen() takes, naming each point that
    misses with the classic freezer's spread there."""
    pts = measured(summ, floor, kinds, 'classic_' + what, lambda k, n: chosen(n))
    if not pts:
        run = [(k, n) for k in kinds for n in sizes_of(summ, k)
               if chosen(n) and all((k, n, fz) in summ for fz in FREEZERS)]
        # Run but not known: the return times of an older log or kernel.
        check(None, text + (': not reported' if run else ': not measured'))
        return
    r, k, n = max(pts)
    missed = sorted((p for p in pts if p[0] > limit), reverse=True)
    check(not missed, '%s: worst %.2f (%s n=%d)%s' % (
        text, r, k, n, '; missed at ' + ', '.join(
            '%s n=%d %.2f%s' % (mk, mn, mr, spread(data, mk, mn, what))
            for mr, mk, mn in missed) if missed else ''))


def spread(data, kind, n, what):
    s = classic_against_itself(data, kind, n, what)
    return ' (classic/classic %.2f)' % s if s is not None else ''


# The series of a panel of latency.png: columns of plot-KIND.dat, style, colour, title.
SERIES = (('1:2:3:4', 'yerrorlines lw 2', '#d62728', 'todo freeze'),
          ('1:5:6:7', 'yerrorlines lw 2', '#1f77b4', 'classic freeze'),
          ('1:8', 'linespoints lw 2 dt 2', 'black', 'floor'),
          ('1:9', 'linespoints lw 1.5 dt 3', '#d62728', 'todo thaw'),
          ('1:10', 'linespoints lw 1.5 dt 3', '#1f77b4', 'classic thaw'))


def plot(out, summ, floor):
    """plot-KIND.dat files and latency.gp; returns the script path."""
    kinds = kinds_in(summ)
    all_n = sorted({n for k in kinds for n in sizes_of(summ, k)} | set(floor))
    for kind in kinds:
        with open(os.path.join(out, 'plot-%s.dat' % kind), 'w') as f:
            f.write('# N todo_med todo_min todo_max classic_med classic_min classic_max '
                    'floor_med todo_thaw_med classic_thaw_med (us)\n')
            for n in sizes_of(summ, kind):
                ss = [summ.get((kind, n, fz)) for fz in FREEZERS]
                row = [n]
                for s in ss:
                    row += ([s['freeze'][k] / 1e3 for k in ('median', 'min', 'max')]
                            if s else ['NaN'] * 3)
                row.append(floor[n]['median'] / 1e3 if n in floor else 'NaN')
                row += [s['thaw']['median'] / 1e3 if s else 'NaN' for s in ss]
                f.write(' '.join(str(x) for x in row) + '\n')
    cols = 3 if len(kinds) > 4 else 2 if len(kinds) > 1 else 1
    rows = (len(kinds) + cols - 1) // cols
    gp = os.path.join(out, 'latency.gp')
    with open(gp, 'w') as f:
        f.write('# gnuplot %s  (written by scripts/host/bench_report.py)\n' % gp)
        f.write('set terminal pngcairo size %d,%d font "Sans,10"\n' % (520 * cols, 420 * rows))
        f.write('set output "%s"\n' % os.path.join(out, 'latency.png'))
        f.write('set datafile missing "NaN"\n')
        f.write('set logscale xy\nset grid\nset key top left font ",8"\n')
        f.write('set xrange [%g:%g]\n' % (all_n[0] / 2, all_n[-1] * 2) if all_n else '')
        f.write('set xlabel "tasks (N)"\nset ylabel "latency (us)"\n')
        f.write('set multiplot layout %d,%d title "Freeze and thaw latency in the kernel, '
                'todo vs classic vs floor (median, bars min..max)"\n' % (rows, cols))
        for kind in kinds:
            d = os.path.join(out, 'plot-%s.dat' % kind)
            f.write('set title "%s: %s"\n' % (kind, KINDS.get(kind, kind).replace('"', "'")))
            f.write('plot ' + ', \\\n  '.join(
                '%s using %s with %s lc rgb "%s" title "%s"' % ('"%s"' % d if i == 0 else '""', *c)
                for i, c in enumerate(SERIES)) + '\n')
        f.write('unset multiplot\n')
    return gp


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--log', required=True, help='console log of the bench boot')
    ap.add_argument('--out', required=True, help='directory for the results')
    ap.add_argument('--vmlinux', help='vmlinux with DWARF, for struct task_struct')
    args = ap.parse_args()
    data = parse_log(args.log)
    if not data['points']:
        sys.exit('error: no "BENCH kind=..." lines in %s: the bench measured nothing%s' % (
            args.log, ''.join('\n  guest: ' + e for e in data['errors'])))
    os.makedirs(args.out, exist_ok=True)
    summ, floor = summarise(data)
    mem = task_struct_fields(args.vmlinux)
    write_csvs(args.out, data, summ, floor)
    text = table(data, summ, floor, mem)
    with open(os.path.join(args.out, 'table.txt'), 'w') as f:
        f.write(text)
    plot(args.out, summ, floor)
    sys.stdout.write(text)


if __name__ == '__main__':
    main()
