#
# gdb helper commands and functions for the todo freezer
#
#  lx-todo [PID]           pending todo items, as /proc/<pid>/todo shows them
#  lx-frozen [STATE]       tasks by freezer state
#  $lx_todo_count(TASK)    number of pending todo items of a task
#
# Needs the kernel's own gdb scripts (vmlinux-gdb.py, CONFIG_GDB_SCRIPTS),
# which gdb auto-loads for ./vmlinux from an auto-load safe path; make
# debug sources this file after them (gdb -x).  Written in the style of the
# kernel's scripts/gdb/linux/*.py.  See docs/gdb-walkthrough.md.
#
# This work is licensed under the terms of the GNU GPL version 2.
#

import gdb

try:
    from linux import tasks, utils
except ImportError:
    raise gdb.GdbError(
        "lx_todo.py needs the kernel's gdb scripts, which were not loaded: "
        "start gdb on build/obj-FLAVOUR/vmlinux with -iex "
        "'add-auto-load-safe-path build/obj-FLAVOUR' (make debug does).")


task_type = utils.CachedType("struct task_struct")

# Kernel constants gdb cannot read from DWARF (they are #defines), for the
# UML x86_64 6.12 kernel of this project.
TASK_FROZEN = 0x8000            # include/linux/sched.h
PF_NOFREEZE = 0x00008000
PF_KTHREAD = 0x00200000
PF_SUSPEND_TASK = 0x80000000
TIF_SIGPENDING = 1              # arch/um/include/asm/thread_info.h
TIF_NOTIFY_SIGNAL = 3
TIF_MEMDIE = 5
TIF_TASK_TODO = 11              # arch-um-patches/0001
CGROUP_FREEZING = 0x6           # kernel/cgroup/legacy_freezer.c: SELF|PARENT


def has_member(typename, member):
    """True if TYPENAME has MEMBER, also inside anonymous unions/structs."""
    try:
        gdb.parse_and_eval("&((%s *)0)->%s" % (typename, member))
        return True
    except gdb.error:
        return False


def need_member(member, option, command):
    if not has_member("struct task_struct", member):
        raise gdb.GdbError(
            "{0}: struct task_struct has no member '{1}': this kernel was "
            "built without {2}; enable {2}?".format(command, member, option))


def static_address(name):
    """Address of a static variable (todo_tail in kernel/task_todo.c...)."""
    sym = gdb.lookup_static_symbol(name)
    if sym is None:
        raise gdb.GdbError("cannot find the kernel variable '%s'" % name)
    return int(sym.value().address)


def todo_ends():
    # A todo list ends at NULL (empty), &todo_tail or &todo_exited (closed
    # by exit_task_todo()); see kernel/task_todo.c.
    return static_address("todo_tail"), static_address("todo_exited")


def todo_items(task):
    """Yield the notifier_block of every item queued on TASK, in run order."""
    tail, exited = todo_ends()
    nb = task['todo']
    seen = 0
    while int(nb) not in (0, tail, exited):
        yield nb
        nb = nb['next']
        seen += 1
        if seen > 100000:
            raise gdb.GdbError("todo list of pid %d does not end"
                               % int(task['pid']))


def todo_closed(task):
    return int(task['todo']) == todo_ends()[1]


def symbol_name(addr):
    """The function at ADDR, as %ps prints it for /proc/<pid>/todo."""
    addr = int(addr)
    if addr == 0:
        return "NULL"
    try:
        block = gdb.block_for_pc(addr)
    except RuntimeError:
        block = None
    while block is not None and block.function is None:
        block = block.superblock
    if block is not None and int(block.start) == addr:
        return block.function.name
    out = gdb.execute("info symbol 0x%x" % addr, to_string=True)
    if out.startswith("No symbol"):
        return "0x%x" % addr
    return out.split(" in section")[0].replace(" + ", "+")


def function_range(name):
    """[start, end) of the code of function NAME, or None (inlined)."""
    sym = gdb.lookup_static_symbol(name) or gdb.lookup_global_symbol(name)
    if sym is None or sym.addr_class != gdb.SYMBOL_LOC_BLOCK:
        return None
    block = gdb.block_for_pc(int(sym.value().address))
    while block is not None and block.function is None:
        block = block.superblock
    return None if block is None else (int(block.start), int(block.end))


def saved_sp(task):
    """The stack pointer a sleeping TASK was switched out with."""
    thread = task['thread']
    if has_member("struct thread_struct", "sp"):      # x86
        return int(thread['sp'])
    return int(thread['switch_buf'][0]['__rsp'])        # UML x86_64


def sleeping_in(task, names):
    """The first function of NAMES with a return address on the stack of
    the sleeping TASK, read from its saved stack pointer up as the
    kernel's __get_wchan() reads it; None if none is there."""
    ranges = [(n, function_range(n)) for n in names]
    ranges = [(n, r) for n, r in ranges if r is not None]
    stack = int(task['stack'])
    size = gdb.lookup_type("union thread_union").sizeof
    sp = saved_sp(task)
    if not ranges or not stack <= sp < stack + size:
        return None
    mem = gdb.selected_inferior().read_memory(sp, stack + size - sp)
    words = memoryview(mem).cast("B")
    for off in range(0, len(words) - 7, 8):
        word = int.from_bytes(words[off:off + 8], "little")
        for name, (start, end) in ranges:
            if start <= word < end:
                return name
    return None


def task_arg(value):
    """A task_struct from a task, a task pointer or a PID."""
    if value.type.code == gdb.TYPE_CODE_INT:
        task = tasks.get_task_by_pid(int(value))
        if task is None:
            raise gdb.GdbError("no task of PID %d" % int(value))
        return task.dereference()
    if value.type.strip_typedefs().code == gdb.TYPE_CODE_PTR:
        return value.cast(task_type.get_type().pointer()).dereference()
    return value


def comm(task):
    return task['comm'].string()


def tif_flags(task):
    return int(tasks.get_thread_info(task)['flags'])


class LxTodo(gdb.Command):
    """List pending todo items of all tasks or of one (/proc/<pid>/todo).

lx-todo [PID]: for every task with pending items (or for task PID), one line
per item in the order the task will run them: pid, comm, priority, callback
symbol and the notifier_block (marked [freeze_todo] when it is the task's
own freeze item).  An item leaves the list just before its callback runs, so
a task inside its callback no longer lists it."""

    def __init__(self):
        super(LxTodo, self).__init__("lx-todo", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        need_member("todo", "CONFIG_TASK_TODO", "lx-todo")
        has_freeze_todo = has_member("struct task_struct", "freeze_todo")
        argv = gdb.string_to_argv(arg)
        if len(argv) > 1:
            raise gdb.GdbError("usage: lx-todo [PID]")
        if argv:
            task = tasks.get_task_by_pid(int(argv[0], 0))
            if task is None:
                raise gdb.GdbError("no task of PID %s" % argv[0])
            selected = [task]
        else:
            selected = tasks.task_lists()

        gdb.write("{:>6} {:<16} {:>11}  {:<28} {}\n".format(
            "PID", "COMM", "PRIO", "CALLBACK", "ITEM"))
        n_items = n_tasks = 0
        for task in selected:
            task = task.dereference()
            own = int(task['freeze_todo'].address) if has_freeze_todo else 0
            found = False
            for nb in todo_items(task):
                mark = " [freeze_todo]" if int(nb) == own else ""
                gdb.write("{:>6} {:<16} {:>11}  {:<28} 0x{:x}{}\n".format(
                    int(task['pid']), comm(task), int(nb['priority']),
                    symbol_name(nb['notifier_call']), int(nb), mark))
                n_items += 1
                found = True
            n_tasks += found
            if argv and not found:
                why = " (list closed: the task is exiting)" \
                    if todo_closed(task) else ""
                gdb.write("pid {} ({}): no todo items pending{}\n".format(
                    int(task['pid']), comm(task), why))
        if not argv:
            gdb.write("{} item(s) pending on {} task(s)\n".format(
                n_items, n_tasks))


LxTodo()


class LxTodoCount(gdb.Function):
    """Return the number of todo items pending on a task.

$lx_todo_count(TASK): TASK is a task_struct, a pointer to one, or a PID;
counts the items lx-todo lists for it (0 when the list is empty or closed)."""

    def __init__(self):
        super(LxTodoCount, self).__init__("lx_todo_count")

    def invoke(self, task):
        need_member("todo", "CONFIG_TASK_TODO", "$lx_todo_count")
        return sum(1 for _ in todo_items(task_arg(task)))


LxTodoCount()


def read_bool(name):
    return bool(int(gdb.parse_and_eval(name)))


def cgroup_freezing(task):
    """cgroup_freezing() of kernel/cgroup/legacy_freezer.c, or False."""
    try:
        css = task['cgroups']['subsys'][int(gdb.parse_and_eval(
            "freezer_cgrp_id"))]
        freezer = css.cast(gdb.lookup_type("struct freezer").pointer())
        return bool(int(freezer['state']) & CGROUP_FREEZING)
    except gdb.error:
        return False    # no CONFIG_CGROUP_FREEZER


class FreezerState:
    """The global freezing conditions, read once per lx-frozen."""

    def __init__(self):
        self.active = int(gdb.parse_and_eval(
            "freezer_active.key.enabled.counter")) > 0
        self.pm_freezing = read_bool("pm_freezing")
        self.pm_nosig_freezing = read_bool("pm_nosig_freezing")
        self.todo = read_bool("pm_freezer_todo")

    def freezing(self, task):
        """freezing(p) of include/linux/freezer.h, kernel/freezer.c."""
        flags = int(task['flags'])
        if not self.active or flags & (PF_NOFREEZE | PF_SUSPEND_TASK):
            return False
        if tif_flags(task) & (1 << TIF_MEMDIE):
            return False
        if self.pm_nosig_freezing or cgroup_freezing(task):
            return True
        return self.pm_freezing and not flags & PF_KTHREAD


STATES = ("frozen", "freezing", "not-freezable", "not-freezing")
# enum freeze_how of include/trace/events/freezer.h, in order.
FREEZE_HOW = ("item", "checkpoint", "in_place", "refrigerator")


def frozen_by_counts():
    """frozen_by[][] of kernel/freezer.c as text, or [] if it is absent."""
    try:
        counts = gdb.lookup_static_symbol("frozen_by").value()
    except (gdb.error, AttributeError):
        return []
    return ["{}: {}".format(who, " ".join(
        "{}={}".format(how, int(counts[i][j]['counter']))
        for j, how in enumerate(FREEZE_HOW)))
        for i, who in enumerate(("user", "kthreads"))]


def classify(fs, task):
    """(state, why) of TASK; see the docstring of lx-frozen."""
    state = int(task['__state'])
    flags = int(task['flags'])
    tif = tif_flags(task)
    queued = int(task['freeze_todo']['next']) != 0
    if state & TASK_FROZEN:
        # Both waits are TASK_FROZEN with saved_state TASK_RUNNING; the
        # stack tells them apart (todo_refrigerator() is the inner frame
        # when __refrigerator() diverted to it).
        where = None
        if int(task['saved_state']) == 0:
            where = sleeping_in(task, ("todo_refrigerator", "__refrigerator"))
        if where == "todo_refrigerator":
            why = "todo wait (todo_refrigerator)"
        elif where == "__refrigerator":
            why = "refrigerator (__refrigerator)"
        elif int(task['saved_state']) == 0:
            why = "frozen, not in a refrigerator's frame"
        else:
            why = "in place, was 0x%x" % int(task['saved_state'])
        if queued:
            why += ", freeze item still queued"
        return "frozen", why
    marks = []
    if queued:
        marks.append("freeze item queued")
    for bit, name in ((TIF_TASK_TODO, "TIF_TASK_TODO"),
                      (TIF_NOTIFY_SIGNAL, "TIF_NOTIFY_SIGNAL"),
                      (TIF_SIGPENDING, "TIF_SIGPENDING")):
        if tif & (1 << bit):
            marks.append(name)
    if int(task['pid']) == 0:
        # init_task: for_each_process_thread() never visits it.
        return "not-freezable", "idle task, not on the task list"
    if fs.freezing(task):
        return "freezing", ", ".join(marks) or "not yet asked"
    reasons = []
    if flags & PF_NOFREEZE:
        reasons.append("PF_NOFREEZE")
    if flags & PF_SUSPEND_TASK:
        reasons.append("PF_SUSPEND_TASK")
    if tif & (1 << TIF_MEMDIE):
        reasons.append("TIF_MEMDIE")
    if not reasons and flags & PF_KTHREAD and not fs.pm_nosig_freezing:
        reasons.append("kthread, pm_nosig_freezing=0")
    if reasons:
        return "not-freezable", ", ".join(reasons + marks)
    return "not-freezing", ", ".join(marks)


class LxFrozen(gdb.Command):
    """List tasks by freezer state (frozen, freezing, not freezable).

lx-frozen [STATE...]: every task, grouped by state, or only the STATEs
named.  The header shows the freezing conditions and the todo freezer's
counters.  Each task is in exactly one state, tested in this order:

  frozen         frozen(p): __state & TASK_FROZEN.  "todo wait" is the
                 todo freezer's wait, "refrigerator" the classic one
                 (which function is on the task's stack: both are
                 TASK_FROZEN alone); "in place" a task frozen
                 where it slept (stopped, traced, freezable sleep), with
                 the state it had (saved_state).
  freezing       freezing(p) as the kernel computes it (freezer_active,
                 pm_freezing, pm_nosig_freezing, PF_NOFREEZE,
                 PF_SUSPEND_TASK, TIF_MEMDIE, the cgroup v1 freezer) and
                 not frozen: asked to freeze, not there yet.  Shows whether
                 its freeze item is queued (freeze_todo.next != NULL) and
                 the kick flags TIF_TASK_TODO, TIF_NOTIFY_SIGNAL and
                 TIF_SIGPENDING.
  not-freezable  the idle task (the freezer walks the task list, which
                 does not hold it), or not freezing(p) because of
                 PF_NOFREEZE, PF_SUSPEND_TASK
                 (the task that runs the suspend) or TIF_MEMDIE, or a
                 kernel thread while pm_nosig_freezing is false (kernel
                 threads freeze only in the second phase).
  not-freezing   freezable, but no freeze is in progress."""

    def __init__(self):
        super(LxFrozen, self).__init__("lx-frozen", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        need_member("todo", "CONFIG_TASK_TODO", "lx-frozen")
        need_member("freeze_todo", "CONFIG_TODO_FREEZER", "lx-frozen")
        wanted = gdb.string_to_argv(arg) or list(STATES)
        for state in wanted:
            if state not in STATES:
                raise gdb.GdbError("lx-frozen: unknown state '%s'; use %s"
                                   % (state, ", ".join(STATES)))
        fs = FreezerState()
        counters = []
        for name in ("todo_user", "todo_kthreads"):
            c = gdb.lookup_static_symbol(name).value()
            counters.append("{} {} in the wait, generation {}".format(
                name[5:], int(c['nr_frozen']['counter']), int(c['gen'])))
        gdb.write("freezer: {}; freezer_active={} pm_freezing={} "
                  "pm_nosig_freezing={}; todo waits: {}\n".format(
                      "todo" if fs.todo else "classic", int(fs.active),
                      int(fs.pm_freezing), int(fs.pm_nosig_freezing),
                      "; ".join(counters)))
        frozen_by = frozen_by_counts()
        if frozen_by:
            gdb.write("frozen by (this or the last freeze): {}\n".format(
                "; ".join(frozen_by)))
        groups = {state: [] for state in STATES}
        for task in tasks.task_lists():
            task = task.dereference()
            state, why = classify(fs, task)
            groups[state].append((int(task['pid']), comm(task), why))
        gdb.write("{:<14} {:>6} {:<16} {}\n".format(
            "STATE", "PID", "COMM", "WHY"))
        for state in STATES:
            if state not in wanted:
                continue
            for pid, name, why in groups[state]:
                gdb.write("{:<14} {:>6} {:<16} {}\n".format(
                    state, pid, name, why))
        gdb.write(", ".join("{} {}".format(len(groups[s]), s)
                            for s in STATES) + "\n")


LxFrozen()
