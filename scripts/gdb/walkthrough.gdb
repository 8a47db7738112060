# One freeze through the todo freezer, single-stepped: run after the first
# stop at freeze_processes() by
#   make debug BREAKS=freeze_processes BATCH=scripts/gdb/walkthrough.gdb
# (tests/host/70-gdb.sh does; docs/gdb-walkthrough.md is its transcript).
# The chosen task is "freeze_me" of scripts/guest/jobs/debug-job.sh.
set trace-commands on
# 1. The suspend entry: echo freeze >/sys/power/state, in the guest's shell.
bt
p $lx_current().comm
lx-frozen freezing
tbreak try_to_freeze_tasks
continue
p pm_freezing
lx-frozen freezing
# 2. The freezer queues freeze_me's freeze item.
break todo_freeze_task if $_streq(p->comm, "freeze_me")
continue
p p->comm
next
next
next
next
tbreak task_todo_queue if $_streq(task->comm, "freeze_me")
continue
finish
lx-todo
p $lx_todo_count(p)
finish
delete
# 3. freeze_me runs the item in its own context.
break todo_freeze_self if $_streq(((struct task_struct *)data)->comm, "freeze_me")
continue
p $lx_current().comm
p nb == &$lx_current()->freeze_todo
bt
lx-todo
step
tbreak todo_refrigerator if $_streq($lx_current().comm, "freeze_me")
continue
# Only freeze_me's own schedule(): compare UML's current task pointer
# (cpu_tasks[0].task), a plain read, not $lx_current().comm, which runs
# Python at every schedule() of every task.
set $freeze_me = &$lx_current()
tbreak schedule if cpu_tasks[0].task == $freeze_me
continue
bt 3
p/x $lx_current().__state
lx-frozen frozen freezing
delete
# 4. Thaw.
break thaw_processes
break todo_thaw_begin
continue
lx-frozen frozen freezing
lx-todo
continue
tbreak todo_frozen_wake if $_streq(((struct task_struct *)wait->private)->comm, "freeze_me")
continue
bt 8
p todo_user.gen
p/x ((struct task_struct *)wait->private)->__state
# 5. After the thaw, which does not wait for the tasks it woke:
# suspend_finish() calls the PM notifiers once thaw_processes() has
# returned, and freeze_me leaves its wait (freezer_bench_left() is called
# right after it), in either order.
break freezer_bench_left if $_streq(p->comm, "freeze_me")
break pm_notifier_call_chain
continue
p $lx_current().comm
bt 4
continue
p $lx_current().comm
bt 4
lx-todo
lx-frozen frozen freezing
delete
continue
