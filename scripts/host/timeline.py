#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Draw one freeze per freezer as a timeline: one lane per task.

Reads the TIMELINE blocks a guest printed on the console
(tests/guest/timeline.h: the freeze's window, its tasks, and the lines of
the kernel's tracepoints todo:todo_add, todo:todo_run, freezer:task_frozen
and sched:sched_wakeup, on the trace clock "mono", and the wake-ups of the
freezing task, the one that ran freeze_processes()) and writes to --out:

  timeline.dat  one line per event or lane segment, per freezer and task
  timeline.gp   the gnuplot script that draws timeline.png from it

Used by "make demo" (scripts/host/demo.sh) and "make bench TIMELINE=kind,N"
(scripts/host/bench.sh), through draw_timeline in scripts/host/lib/timeline.sh.  Python
standard library only.  Re-draw from a saved log:
  scripts/host/timeline.py --log build/logs/demo.log --out build/demo
  gnuplot build/demo/timeline.gp

timeline.dat columns (times in microseconds):
  freezer lane pid name what phase t0_us t1_us how color
  what   lane: one per task, t0_us = how long it was frozen (-1: it was not)
         queued (todo_add), ran (todo_run), frozen (task_frozen; how),
         woken (the first sched_wakeup after the thaw began), user (back
         in user space, as the task saw it): events, t0_us = t1_us
         pending (queued until frozen), frozen_bar, resuming (woken until
         back in user space): segments from t0_us to t1_us
         fwake: a wake-up of the freezing task while it froze user space
         (see freezer_wakes()), on lane -1, an event; pid and name: the
         task the wake-up ran in (the waker, or the task a timer interrupt
         found running); only in logs whose TIMELINE-BEGIN has freezer_pid
  phase  freeze: since the freeze began (freeze_processes());
         thaw: since the thaw began (thaw_processes())
  how    item, in_place, refrigerator; "-" if none
  color  the lane's colour for how it was frozen, as an integer 0xRRGGBB
"""
import argparse
import collections
import math
import os
import re
import sys

FREEZERS = ('todo', 'classic')
HOW_COLORS = {
    'item': 0xd62728,          # ran its todo freeze item
    'in_place': 0x2ca02c,      # asleep: frozen by the freezing task
    'refrigerator': 0x1f77b4,  # classic freezer
    '-': 0x7f7f7f,
}
HOW_TEXT = {
    'item': 'frozen by its todo item',
    'in_place': 'frozen in place',
    'refrigerator': 'frozen in the refrigerator',
}
# The marks on a lane, drawn over its frozen bar: what (timeline.dat column 5):
# the columns after x:y, the style (point sizes scaled by K) and the key's text.
MARKS = {
    'pending': (':($8-$7):(0)', 'vectors nohead lw 1.5 dt 2 lc rgb "#555555"',
                'queued, not yet frozen'),
    'queued': ('', 'points pt 11 ps 1.3*K lc rgb "#ff7f0e"', 'freeze item queued (todo:todo_add)'),
    'ran': ('', 'points pt 6 ps 1.6*K lw 1.5 lc rgb "black"', 'ran its item (todo:todo_run)'),
    'frozen': (':10', 'points pt 5 ps 1.1*K lc rgb variable', None),
    'resuming': (':($8-$7):(0)', 'vectors nohead lw 1.5 dt 3 lc rgb "#2ca02c"',
                 'woken, not yet back in user space'),
    'woken': ('', 'points pt 9 ps 1.3*K lc rgb "black"',
              'woken by the thaw (sched:sched_wakeup)'),
    'user': ('', 'points pt 7 ps 1.2*K lc rgb "#006400"',
             "back in user space (the task's own clock)"),
    'fwake': ('', 'points pt 13 ps 1.2*K lc rgb "#9467bd"',
              'freezing task woken (sched:sched_wakeup)'),
}
# The marks of each panel, in drawing order.
PHASE_MARKS = {'freeze': ('pending', 'queued', 'ran', 'frozen', 'fwake'),
               'thaw': ('resuming', 'woken', 'user')}
# The classic freezer polls every 8 ms at most: a wake-up of the freezing
# task this long after the last task froze did not end its wait.
LAST_WAKE_NS = 50 * 10**6
KV_RE = re.compile(r'(\w+)=(\S*)')
# "comm-pid [cpu] flags  sec.usec: event: fields" (the flags may be absent).
TRACE_RE = re.compile(r'^\s*(?P<comm>.*?)-(?P<cpid>\d+)\s+(?:\(\s*[-\d]+\)\s+)?\[\d+\]\s+'
                      r'(?:(?P<flags>\S+)\s+)?'
                      r'(?P<sec>\d+)\.(?P<frac>\d+):\s+(?P<event>\w+):\s*(?P<fields>.*)$')


class TimelineError(Exception):
    pass


def parse_log(path):
    """The TIMELINE blocks of a console log, in order, as dicts."""
    blocks, cur = [], None
    with open(path, errors='replace') as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\r\n')
            if line.startswith('TIMELINE-BEGIN '):
                cur = dict(KV_RE.findall(line), window={}, tasks=[], events=[], line=n)
            elif cur is None or not line.startswith('TIMELINE'):
                continue
            elif line.startswith('TIMELINE window '):
                cur['window'] = {k: int(v) for k, v in KV_RE.findall(line)}
            elif line.startswith('TIMELINE task '):
                kv = dict(KV_RE.findall(line))
                cur['tasks'].append(dict(pid=int(kv['pid']), name=kv['name'],
                                         user_ns=int(kv['user_ns'])))
            elif line.startswith('TIMELINE trace '):
                m = TRACE_RE.match(line[len('TIMELINE trace '):])
                if m:
                    frac = m['frac'][:9].ljust(9, '0')
                    # The flags' third: in a hard or soft interrupt, or an NMI.
                    irq = (m['flags'] or '')[2:3] in tuple('hHszZ')
                    cur['events'].append(dict(ns=int(m['sec']) * 10**9 + int(frac),
                                              event=m['event'], comm=m['comm'],
                                              cpid=int(m['cpid']), irq=irq,
                                              fields=dict(KV_RE.findall(m['fields']))))
            elif line.startswith('TIMELINE-END '):
                cur.update(end=dict(KV_RE.findall(line)))
                blocks.append(cur)
                cur = None
    return blocks


def lanes_of(block):
    """Per task of @block: when each thing happened (ns, None if not)."""
    w = block['window']
    start, thaw = w['freeze_start_ns'], w['thaw_at_ns']
    lanes = {t['pid']: dict(pid=t['pid'], name=t['name'], queued=None, ran=None, frozen=None,
                            how='-', by=None, froze_in=None, woken=None,
                            user=t['user_ns'] if t['user_ns'] > thaw else None)
             for t in block['tasks']}
    for e in block['events']:
        try:
            lane = lanes[int(e['fields'].get('pid', -1))]
        except (ValueError, KeyError):  # no pid, or not a task of the block
            continue
        ns, ev = e['ns'], e['event']
        # The lane's time that the first such event in the freeze sets.
        key = {'todo_add': 'queued', 'todo_run': 'ran', 'task_frozen': 'frozen'}.get(ev)
        # Trace times are in microseconds: allow one before the window.
        if key and start - 1000 <= ns < thaw and lane[key] is None:
            lane[key] = ns
            if key == 'frozen':
                lane['how'] = e['fields'].get('how', '-')
                lane['by'] = e['fields'].get('freezer')
                lane['froze_in'] = e['cpid']  # itself, or the freezing task (in place)
        elif ev == 'sched_wakeup' and ns >= thaw - 1000 and lane['woken'] is None:
            lane['woken'] = max(ns, thaw)
    return [lanes[t['pid']] for t in block['tasks']]


def last_frozen(lanes):
    """The lane frozen last, or None."""
    return max((ln for ln in lanes if ln['frozen'] is not None), key=lambda ln: ln['frozen'],
               default=None)


def freezer_wakes(block, lanes):
    """The wake-ups of the freezing task while it froze user space, or None
    if the log does not name that task (TIMELINE-BEGIN freezer_pid).

    From the freeze's start until the first wake-up once the last task froze
    (frozen_at_ns), if within LAST_WAKE_NS: that one let it find every task
    frozen (the todo freezer waits to be woken by the last task to freeze,
    the classic one polls).  Later ones are of what followed: the kernel
    threads' freeze, the thaw's command.  If it froze the last lane itself,
    in place, it did not sleep after that.
    """
    fpid = int(block.get('freezer_pid') or 0)
    if not fpid:
        return None
    w = block['window']
    end = min(w['thaw_at_ns'], w['frozen_at_ns'] + LAST_WAKE_NS)
    wakes = [e for e in block['events'] if e['event'] == 'sched_wakeup' and
             e['fields'].get('pid') == str(fpid) and w['freeze_start_ns'] <= e['ns'] < end]
    # Trace times are in microseconds: allow one before frozen_at_ns.
    n = sum(e['ns'] < w['frozen_at_ns'] - 1000 for e in wakes)
    last = last_frozen(lanes)
    if last is None or last['froze_in'] != fpid:
        n += 1
    return wakes[:n]


def pick_blocks(blocks):
    """The last block of each freezer, todo first."""
    last = {}
    for b in blocks:
        if not b['window'] or not b['tasks']:
            raise TimelineError('TIMELINE block at line %d has no window or no tasks' % b['line'])
        last[b.get('freezer')] = b
    chosen = [last[f] for f in FREEZERS if f in last]
    if not chosen:
        raise TimelineError('no TIMELINE block of the todo or the classic freezer')
    return chosen


def us(ns):
    return ns / 1e3


def on_axis(ns, since, rng):
    """@ns in us since @since, clamped to the axis range @rng."""
    return min(max(us(ns - since), rng[0]), rng[1])


def fmt_dur(ns):
    if ns >= 1e9:
        return '%.3f s' % (ns / 1e9)
    if ns >= 1e6:
        return '%.2f ms' % (ns / 1e6)
    return '%.0f us' % (ns / 1e3)


def decade_range(values, lo_floor=1.0):
    """A log axis range, in whole decades, holding every positive value."""
    pos = [v for v in values if v > 0]
    if not pos:
        return lo_floor, lo_floor * 1000
    lo = max(lo_floor, 10 ** math.floor(math.log10(min(pos))))
    hi = 10 ** math.ceil(math.log10(max(pos) * 1.2))
    return lo, max(hi, lo * 100)


# The times of a lane on each x axis: since the freeze began, since the thaw began.
PHASE_TIMES = (('freeze', 'freeze_start_ns', ('queued', 'ran', 'frozen')),
               ('thaw', 'thaw_at_ns', ('woken', 'user')))


def write_data(out, blocks):
    """timeline.dat; returns the per-freezer lanes and the two x ranges (us)."""
    drawn = [(b, lanes_of(b)) for b in blocks]
    times = {phase: [us(ln[k] - b['window'][since]) for b, lanes in drawn
                     for ln in lanes for k in keys if ln[k] is not None]
             for phase, since, keys in PHASE_TIMES}
    times['freeze'] += [us(e['ns'] - b['window']['freeze_start_ns']) for b, lanes in drawn
                        for e in freezer_wakes(b, lanes) or ()]
    frange, trange = decade_range(times['freeze']), decade_range(times['thaw'])
    line = '%s %d %d %s %s %s %.3f %.3f %s %d\n'
    path = os.path.join(out, 'timeline.dat')
    with open(path, 'w') as f:
        f.write('# written by scripts/host/timeline.py; columns: freezer lane pid name what phase '
                't0_us t1_us how color\n')
        f.write('# x ranges (us): freeze %g %g thaw %g %g\n' % (frange + trange))
        for b, lanes in drawn:
            fz, w = b['freezer'], b['window']
            fwakes = freezer_wakes(b, lanes)
            head = ' '.join('%s=%d' % kv for kv in sorted(w.items()))
            if fwakes is not None:
                head += ' freezer_pid=%s' % b['freezer_pid']
            f.write('# %s what=%s %s\n' % (fz, b.get('what', '-'), head))
            for i, ln in enumerate(lanes):
                color = HOW_COLORS.get(ln['how'], HOW_COLORS['-'])
                name = re.sub(r'\s', '_', ln['name']) or '?'

                def row(what, phase, t0, t1=None, how='-'):
                    f.write(line % (fz, i, ln['pid'], name, what, phase, t0,
                                    t0 if t1 is None else t1, how, color))

                # Each time the lane has, in us on its axis and clamped to its range.
                t = {k: on_axis(ln[k], w[since], rng)
                     for (_, since, keys), rng in zip(PHASE_TIMES, (frange, trange))
                     for k in keys if ln[k] is not None}
                frozen_for = -1
                if 'frozen' in t:
                    frozen_for = us((ln['woken'] or w['thaw_at_ns']) - ln['frozen'])
                row('lane', '-', frozen_for, 0, ln['how'])
                if 'queued' in t:
                    row('queued', 'freeze', t['queued'])
                    if 'frozen' in t:
                        row('pending', 'freeze', t['queued'], t['frozen'])
                if 'ran' in t:
                    row('ran', 'freeze', t['ran'])
                if 'frozen' in t:
                    row('frozen', 'freeze', t['frozen'], None, ln['how'])
                    row('frozen_bar', 'freeze', t['frozen'], frange[1], ln['how'])
                    row('frozen_bar', 'thaw', trange[0], t.get('woken', trange[1]), ln['how'])
                if 'woken' in t:
                    row('woken', 'thaw', t['woken'])
                    if 'user' in t:
                        row('resuming', 'thaw', t['woken'], t['user'])
                if 'user' in t:
                    row('user', 'thaw', t['user'])
            for e in fwakes or ():
                t = on_axis(e['ns'], w['freeze_start_ns'], frange)
                f.write(line % (fz, -1, e['cpid'], re.sub(r'\s', '_', e['comm']) or '?', 'fwake',
                                'freeze', t, t, '-', HOW_COLORS['-']))
    return path, drawn, frange, trange


def decade_tics(rng):
    names = {1: '1 us', 10: '10 us', 100: '100 us', 1e3: '1 ms', 1e4: '10 ms',
             1e5: '100 ms', 1e6: '1 s', 1e7: '10 s', 1e8: '100 s'}
    tics, v = [], rng[0]
    while v <= rng[1] * 1.001:
        tics.append('"%s" %g' % (names.get(v, '%g us' % v), v))
        v *= 10
    return '(%s)' % ', '.join(tics)


def gp_str(s):
    return '"%s"' % s.replace('\\', '\\\\').replace('"', "'")


def woken_text(b, lanes):
    """The freezing task's wake-ups in the freeze, by whom; None if not known."""
    wakes = freezer_wakes(b, lanes)
    if wakes is None:
        return None
    last = last_frozen(lanes)

    def waker(e):
        task = '%s-%d' % (e['comm'], e['cpid'])
        if e['irq']:  # a timer's, most likely: the task is the one it found running
            return 'an interrupt (in %s)' % task
        return task + (' (the last task to freeze)' if last and e['cpid'] == last['pid'] else '')

    text = 'the freezing task was woken %d time%s in the freeze' % (
        len(wakes), '' if len(wakes) == 1 else 's')
    by = collections.Counter(map(waker, wakes)).most_common()
    if len(wakes) == 1:
        text += ', by ' + by[0][0]
    elif by:
        text += ', by ' + ', '.join('%s x%d' % kv for kv in by[:3])
        if len(by) > 3:
            text += ', others x%d' % sum(n for _, n in by[3:])
    return text


def summary(b, lanes):
    """The lines that sum @b up: its tasks', and its freezing task's if known."""
    w = b['window']
    hows = collections.Counter(ln['how'] for ln in lanes)
    how = ', '.join('%s %d' % (h if h != '-' else 'not frozen', n) for h, n in sorted(hows.items()))
    woken = [ln['woken'] - w['thaw_at_ns'] for ln in lanes if ln['woken'] is not None]
    user = [ln['user'] - w['thaw_at_ns'] for ln in lanes if ln['user'] is not None]
    text = '%s freezer: %d tasks (%s); all frozen %s after the freeze began' % (
        b['freezer'], len(lanes), how, fmt_dur(w['freeze_ns']))
    if woken:
        text += '; woken %s..%s after the thaw began' % (fmt_dur(min(woken)), fmt_dur(max(woken)))
    if user:
        text += '; back in user space from %s' % fmt_dur(min(user))
    fwoken = woken_text(b, lanes)
    return [text] + ([fwoken] if fwoken else [])


def write_gnuplot(out, dat, drawn, frange, trange, title, png):
    width = 1500
    # The first lane of each block: -1 for the freezing task's, if known.
    firsts = [-1 if freezer_wakes(b, lanes) is not None else 0 for b, lanes in drawn]
    nmax = max(len(lanes) - first for (_, lanes), first in zip(drawn, firsts))
    lane_px = 22 if nmax <= 40 else max(3, min(22, 900 // nmax))
    panel = max(160, nmax * lane_px + 30)
    # Bars and marks shrink with the lanes, so that neighbours stay apart.
    lw, k = min(7, max(1, lane_px * 0.45)), min(1.0, lane_px / 20)
    # Room for a second summary line above each panel.
    more = 14 * (max(len(summary(b, lanes)) for b, lanes in drawn) - 1)
    top, row_gap, bottom = 60 + more, 75 + more, 130
    height = top + len(drawn) * panel + (len(drawn) - 1) * row_gap + bottom
    sy = lambda px: 1 - px / height  # noqa: E731  screen y of a pixel row from the top
    cols = ((0.13, 0.53, 'freeze', frange, 'since the freeze began (freeze_processes())'),
            (0.56, 0.90, 'thaw', trange, 'since the thaw began (thaw_processes())'))
    gp = os.path.join(out, 'timeline.gp')
    L = ['# gnuplot %s  (written by scripts/host/timeline.py)' % gp,
         'set terminal pngcairo noenhanced size %d,%d font "Sans,9"' % (width, height),
         'set output %s' % gp_str(png),
         'D = %s' % gp_str(dat),
         'K = %g  # point size factor for the lane height' % k,
         'sel(f, w, p) = strcol(1) eq f && strcol(5) eq w && strcol(6) eq p',
         'set datafile missing "NaN"',
         'set logscale x',
         'set grid xtics lc rgb "#dddddd"',
         'set multiplot title %s font ",12"' % gp_str(title)]
    a = L.append
    for r, ((b, lanes), first) in enumerate(zip(drawn, firsts)):
        fz = b['freezer']
        y0 = top + r * (panel + row_gap)
        n = len(lanes)
        step = 1 if n <= 40 else int(math.ceil(n / 40))
        # Tics for every step-th lane (a lane always exists): the task on the
        # left, how long it was frozen on the right.
        shown = [(i, ln) for i, ln in enumerate(lanes) if i % step == 0]
        ytics = ['%s %d' % (gp_str('%s %d' % (ln['name'], ln['pid'])), i) for i, ln in shown]
        if first < 0:
            ytics.insert(0, '%s -1' % gp_str('freezing task (pid %s)' % b['freezer_pid']))
        y2tics = ', '.join('%s %d' % (gp_str('not frozen' if ln['frozen'] is None else fmt_dur(
            (ln['woken'] or b['window']['thaw_at_ns']) - ln['frozen'])), i) for i, ln in shown)
        lines = summary(b, lanes)
        for i, text in enumerate(lines, 1):
            a('set label %d %s at screen 0.01,%f left font ",10"' % (
                i, gp_str(text), sy(y0 - 14 - 14 * (len(lines) - i))))
        for c, (x0, x1, phase, rng, xlabel) in enumerate(cols):
            a('set lmargin at screen %f; set rmargin at screen %f' % (x0, x1))
            a('set tmargin at screen %f; set bmargin at screen %f' % (sy(y0), sy(y0 + panel)))
            a('set xrange [%g:%g]; set xtics %s' % (rng[0], rng[1], decade_tics(rng)))
            a('set xlabel %s offset 0,0.3' % gp_str(xlabel))
            a('set yrange [%f:%f]' % (n - 0.5, first - 0.5))
            if c == 0:
                a('set ytics (%s) font ",8"' % ', '.join(ytics))
                a('unset y2tics; unset y2label')
                a('set ylabel %s' % gp_str(fz + ' freezer'))
            else:
                a('unset ytics; unset ylabel')
                a('set y2range [%f:%f]' % (n - 0.5, first - 0.5))
                a('set y2tics (%s) font ",8"' % y2tics)
                a('set y2label "frozen for"')
            a('unset key')
            marks = [('frozen_bar', ':($8-$7):(0):10',
                      'vectors nohead lw %g lc rgb variable' % lw, None)] + [
                         (what,) + MARKS[what] for what in PHASE_MARKS[phase]
                         if what != 'fwake' or first < 0]
            a('plot ' + ', \\\n  '.join(
                'D using (sel("%s","%s","%s") ? $7 : NaN):2%s with %s notitle' % (
                    fz, what, phase, using, style) for what, using, style, _ in marks))
        a('unset label')
    # The key, in a plot of its own across the whole width below the panels.
    a('set lmargin at screen 0.03; set rmargin at screen 0.97')
    a('set tmargin at screen %f; set bmargin at screen 0.005' % sy(height - bottom + 40))
    a('unset border; unset tics; unset xlabel; unset ylabel; unset y2label; unset logscale x')
    a('unset grid; set xrange [0:1]; set yrange [0:1]')
    a('set key inside center center horizontal maxrows 3 width 1 samplen 2.5 font ",9"')
    # The marks at their full size, and a point per colour of how a task was frozen.
    key = [(MARKS[w][1].replace('*K', ''), MARKS[w][2]) for w in ('pending', 'queued', 'ran')]
    key += [('points pt 5 ps 1.3 lc rgb "#%06x"' % HOW_COLORS[how],
             text + (' (freezer:task_frozen); bar: frozen' if how == 'item' else ''))
            for how, text in HOW_TEXT.items()]
    key += [(MARKS[w][1].replace('*K', ''), MARKS[w][2])
            for w in ('woken', 'resuming', 'user') + (('fwake',) if min(firsts) < 0 else ())]
    a('plot ' + ', \\\n  '.join('NaN with %s title %s' % (style, gp_str(title))
                                  for style, title in key))
    a('unset multiplot')
    with open(gp, 'w') as f:
        f.write('\n'.join(L) + '\n')
    return gp


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--log', required=True, help='console log with TIMELINE blocks')
    ap.add_argument('--out', required=True, help='directory for timeline.dat, .gp, .png')
    ap.add_argument('--title', default='One freeze and thaw, todo vs classic freezer')
    args = ap.parse_args()
    try:
        blocks = pick_blocks(parse_log(args.log))
    except (OSError, TimelineError) as e:
        sys.exit('error: %s: %s' % (args.log, e))
    os.makedirs(args.out, exist_ok=True)
    dat, drawn, frange, trange = write_data(args.out, blocks)
    png = os.path.join(args.out, 'timeline.png')
    write_gnuplot(args.out, dat, drawn, frange, trange, args.title, png)
    for b, lanes in drawn:
        print('; '.join(summary(b, lanes)))
        seen = {ln['by'] for ln in lanes if ln['by']}
        if seen and seen != {b['freezer']}:
            print('warning: the %s block has tasks frozen by the %s freezer' % (
                b['freezer'], '/'.join(sorted(seen))))
        if b.get('end', {}).get('lost') == '1':
            print('warning: the %s freeze lost trace events' % b['freezer'])
        missing = [ln['name'] for ln in lanes if ln['frozen'] is None]
        if missing:
            print('warning: no freezer:task_frozen in the %s freeze for %s' % (
                b['freezer'], ' '.join(missing)))


if __name__ == '__main__':
    main()
