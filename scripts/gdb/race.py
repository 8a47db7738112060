# The race lab's narrator (make race): run by gdb in batch mode on the
# x86_64 kernel under QEMU (scripts/host/race.sh), from the first stop at one of
# the lab's holds.  It sets a breakpoint on every step of each race the
# guest runs (race= on the kernel command line, tests/guest/race_lab.c),
# and at each stop prints which CPU, which task, which function and line,
# and the values that decide the race, with where the other CPUs are.
# The kernel's knobs make each interleaving happen in this order with or
# without gdb: a held CPU spins until the other has done its part
# (kernel/task_todo_race.c, thaw_race_pid in todo_freezer_test.c), so
# gdb's all-stop mode, which stops every vCPU at every breakpoint, is
# enough; no scheduler-locking or non-stop mode is needed.
import gdb

TASK_FROZEN = 0x8000

# Each race: its breakpoints (location, condition) in the order they are
# hit; the first two races of the guest's walk, then the two of its thaw.
WALK = [("race_walk_hold", "fn == race_a_fn"), ("race_cancel", None),
        ("race_free_block", "b->name[0] == 'B'"),
        ("race_report_use_after_free", None), ("race_b_fn", None)]
THAW = [("todo_thaw_race_hold", None), ("todo_thaw_begin", "thaw_hold_task != 0"),
        ("todo_frozen_wake", "wait->private == thaw_hold_task")]
# Stops per race: walk 2005 and today, 4 each; thaw sb and fixed, 3 each.
STOPS = {"walk": 8, "thaw": 6}

step = 0


def value(expr):
    return gdb.parse_and_eval(expr)


def comm(task):
    return task["comm"].string()


def cpu_of_thread():
    return int(value("$lx_current().thread_info.cpu"))


def say(text):
    gdb.write("         %s\n" % text)


def frame_of(names):
    """The newest frame whose function is one of names, or None."""
    f = gdb.newest_frame()
    while f is not None:
        if f.function() is not None and f.function().name in names:
            return f
        f = f.older()
    return None


def src_text(path, line):
    """Line @line of source file @path, also when the objects were compiled
    in another tree (ccache): then the part after build/src/ is looked up in
    this kernel's tree, beside its object dir."""
    tree = gdb.current_progspace().filename.rsplit("/build/", 1)[0] + "/build/src/"
    for name in (path, tree + path.split("/build/src/")[-1]):
        try:
            with open(name) as src:
                return src.read().splitlines()[line - 1].strip()
        except (OSError, IndexError):
            continue
    return ""


def source_line(frame):
    """File (relative to the kernel tree), line and text of @frame's pc."""
    sal = frame.find_sal()
    if sal.symtab is None:
        return "?", 0, ""
    return (sal.symtab.filename.split("build/src/")[-1], sal.line,
            src_text(sal.symtab.fullname(), sal.line))


def definition(name):
    """File, line and text of function @name's definition."""
    sym = gdb.lookup_global_symbol(name) or gdb.lookup_static_symbol(name)
    if sym is None or sym.symtab is None:
        return "?", 0, ""
    return (sym.symtab.filename.split("build/src/")[-1], sym.line,
            src_text(sym.symtab.fullname(), sym.line))


def var(frame, name):
    try:
        v = frame.read_var(name)
        return None if v.is_optimized_out else v
    except ValueError:
        return None


# Functions a vCPU's stack is named by, when one is on it: the lab's own,
# rather than the helper it happens to be in (KCSAN's, the clock's).
LANDMARKS = {"race_walk_hold", "race_walk", "cancel_write", "race_walk_2005",
             "task_todo_call", "todo_thaw_race_hold", "todo_refrigerator",
             "thaw_processes", "freeze_processes", "race_b_fn", "race_free_block"}


def landmark():
    """The newest lab function on the selected vCPU's stack, else its newest."""
    f, depth = gdb.newest_frame(), 0
    newest = f.function().name if f.function() else "?"
    try:
        while f is not None and depth < 40:
            if f.function() is not None and f.function().name in LANDMARKS:
                return f.function().name
            f, depth = f.older(), depth + 1
    except gdb.error:
        pass
    return newest


def others():
    """Where every other vCPU is: its task and function."""
    here = gdb.selected_thread()
    out = []
    for t in sorted(gdb.selected_inferior().threads(), key=lambda t: t.num):
        if t.num == here.num:
            continue
        t.switch()
        cpu = t.num - 1
        curr = value("$lx_per_cpu(runqueues, %d).curr" % cpu).dereference()
        if comm(curr).startswith("swapper/"):
            out.append("CPU %d idle" % cpu)
        else:
            out.append("CPU %d %s in %s()" % (cpu, comm(curr), landmark()))
    here.switch()
    return "; ".join(out)


def header(where, frame=None):
    """The step line: which CPU, task, function and line; @frame the one
    whose line to show, else @where's definition (a stop at its entry)."""
    global step
    step += 1
    task = value("$lx_current()")
    path, line, text = source_line(frame) if frame else definition(where)
    gdb.write("\n[step %d] CPU %d, %s (pid %d), %s() at %s:%d\n" %
              (step, cpu_of_thread(), comm(task), int(task["pid"]), where, path, line))
    if text:
        say("%d\t%s" % (line, text))


def finish():
    """Run to the return of the current function; the value it returned.
    Under QEMU's gdb stub, leaving a hardware breakpoint can report the
    same breakpoint again before the function ran (seen once in CI: the
    history was empty): then finish again."""
    frame = gdb.selected_frame()
    pc, fn = frame.pc(), frame.function()
    for _ in range(5):
        gdb.execute("finish", to_string=True)
        now = gdb.selected_frame()
        if now.pc() != pc or now.function() != fn:
            return str(gdb.history(0))
    raise gdb.GdbError("finish kept stopping at the start of %s" % fn)


def walk_hold():
    walk = frame_of(["race_walk_2005", "task_todo_call", "__try_task_todo"])
    header(walk.function().name, walk)
    b = value("block_b")
    nxt = var(walk, "next")
    if walk.function().name == "race_walk_2005":
        say("the 2005 walk, in place on current->todo, no lock: it read A->next = %s (block B at %s)"
            % (nxt if nxt is not None else "<optimized out>", b))
        say("A and B are still queued: current->todo = %s, A->next = %s" %
            (value("walker->todo"), value("walker->todo->next")))
    else:
        say("today's walk, on the list task_todo_run() detached under pi_lock: next = %s (block B at %s)"
            % (nxt if nxt is not None else "<optimized out>", b))
        say("current->todo = %s: nothing is queued on the task any more" % value("walker->todo"))
    say("held in race_walk_hold() until the canceller is done; %s" % others())


def walk_cancel():
    header("race_cancel")
    say("cancels B (%s) on %s (pid %d): task_todo_cancel() walks its list under its pi_lock"
        % (value("b"), comm(value("*task")), int(value("task->pid"))))
    say("meanwhile: %s" % others())
    ret = finish()
    if ret == "true":
        say("returned %s: B was still on the live list, so it is unlinked and will not run;"
            " the API says the caller may free it now" % ret)
    else:
        say("returned %s: B is on no list (the walker detached it), so it will run;"
            " the caller must wait for its callback before freeing it" % ret)


def walk_free():
    header("race_free_block")
    say("frees B at %s: SLAB_POISON fills it with 0x6b (POISON_FREE)" % value("b"))
    say("meanwhile: %s" % others())


def walk_uaf():
    header("race_report_use_after_free")
    nb = value("nb")
    words = [int(value("((unsigned long *)%d)[%d]" % (int(nb), i))) for i in range(3)]
    say("resumed with next = B: B's notifier_block at %s now reads %s" %
        (nb, " ".join("0x%016x" % w for w in words)))
    say("the walk would call B->notifier_call = 0x%016x: use after free (the kernel's report follows)" % words[0])


def walk_b_runs():
    header("race_b_fn")
    say("B runs in the walker's context, after A: the cancel could not take it; "
        "the canceller frees it when this callback completes B's completion")
    say("meanwhile: %s" % others())


def thaw_hold():
    refr = frame_of(["todo_refrigerator", "todo_freeze_self"])
    header(refr.function().name if refr else "todo_thaw_race_hold", refr)
    state = int(value("$lx_current().__state"))
    gen, cur = var(refr, "gen") if refr else None, int(value("todo_user.gen"))
    sb = int(value("todo_freezer_reenact")) & 0x10
    woke = "woken by the thaw's spurious wake-up, it rechecks"
    if sb:
        leave = var(refr, "leave") if refr else None
        say("%s the SB way (reenact SB): load first (L1), then store (S1)" % woke)
        say("L1 done: gen = %s, todo_user.gen = %d, leave = %s" % (gen, cur, leave))
        say("S1 not yet: __state = 0x%x (%s)" % (state, "TASK_FROZEN" if state & TASK_FROZEN else "running"))
    else:
        say("%s today's way: store (S1), then load (L1) under freezer_lock" % woke)
        say("S1 done: __state = 0x%x (%s); L1 not yet: gen = %s, todo_user.gen = %d"
            % (state, "TASK_FROZEN" if state & TASK_FROZEN else "running", gen, cur))
    say("held in todo_thaw_race_hold() until the thaw has woken the frozen tasks; %s" % others())


# todo_user.gen when the thaw began (step todo_thaw_begin), for step L2.
gen_at_thaw = None


def thaw_begin():
    global gen_at_thaw
    header("todo_thaw_begin")
    gen_at_thaw = int(value("todo_user.gen"))
    say("todo_user.gen = %d; the thaw ends it under freezer_lock (S2), then wakes the "
        "frozen tasks with one broadcast" % gen_at_thaw)


def thaw_task():
    header("todo_frozen_wake")
    say("S2: the thaw ends the generation under freezer_lock: todo_user.gen %s -> %d"
        % (gen_at_thaw, int(value("todo_user.gen"))))
    p = value("(struct task_struct *)wait->private")
    state = int(p["__state"])
    if state & TASK_FROZEN:
        verdict = "frozen(p) is true: it wakes %s" % comm(p)
    else:
        verdict = "frozen(p) is false: no wake-up for %s, which has yet to store TASK_FROZEN" % comm(p)
    say("L2: the thaw's one broadcast on todo_user.frozen_wq reaches %s and reads its state: "
        "__state = 0x%x; %s" % (comm(p), state, verdict))
    say("meanwhile: %s" % others())


NARRATE = {"race_walk_hold": walk_hold, "race_cancel": walk_cancel,
           "race_free_block": walk_free, "race_report_use_after_free": walk_uaf,
           "race_b_fn": walk_b_runs, "todo_thaw_race_hold": thaw_hold,
           "todo_thaw_begin": thaw_begin, "todo_frozen_wake": thaw_task}


def narrate():
    f = gdb.newest_frame()
    name = f.function().name if f.function() else "?"
    fn = NARRATE.get(name)
    if fn is None:
        gdb.write("\n(stopped in %s(), not a step of the lab)\n" % name)
        return False
    fn()
    return True


def main():
    try:
        line = value("saved_command_line").string()
    except gdb.error as e:
        # No guest to read: its QEMU ended before this script ran.
        gdb.write("race lab: no guest to narrate (%s)\n" % e)
        return
    race = ([w[5:] for w in line.split() if w.startswith("race=")] or ["all"])[-1]
    races = ["walk", "thaw"] if race == "all" else [race]
    gdb.write("race lab: race=%s; every vCPU stops at each step (all-stop mode)\n" % race)
    gdb.execute("delete")
    for name in races:
        for loc, cond in WALK if name == "walk" else THAW:
            bp = gdb.Breakpoint(loc)
            if cond:
                bp.condition = cond
    left = sum(STOPS[r] for r in races)
    while left > 0:
        if narrate():
            left -= 1
        if left > 0:
            try:
                gdb.execute("continue", to_string=True)
            except gdb.error as e:
                # The guest is gone (QEMU ended: a KVM that failed it, whose
                # caller restarts guest and gdb under TCG, or a timeout).
                gdb.write("\nrace lab: gdb lost the guest after %d steps (%s)\n" % (step, e))
                return
    gdb.execute("delete")
    gdb.write("\nrace lab: %d steps narrated; gdb detaches, the guest prints its verdicts\n" % step)


main()
