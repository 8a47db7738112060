# One todo freeze on the SMP kernel under QEMU, in batch mode: run after
# the first stop (a default breakpoint, todo_freeze_task) by
#   make debug FLAVOUR=smp BATCH=scripts/gdb/smp-freeze.gdb
# (tests/host/95-gdb-smp.sh does; docs/smp.md has its transcript).  The
# task that freezes is "freeze_me" of scripts/guest/jobs/debug-job.sh.
set trace-commands on
# One gdb thread per vCPU.
info threads
bt 3
delete
# freeze_me's freeze item queued: it still sleeps in read(), since the
# freezer wakes it only after task_todo_queue() returns, with freezer_lock
# and interrupts held, so no CPU runs the item meanwhile.
thbreak task_todo_queue if $_streq(task->comm, "freeze_me")
continue
finish
lx-todo
lx-frozen freezing
# freeze_me runs its item in its own context, on whichever CPU woke it.
hbreak todo_freeze_self if $_streq(((struct task_struct *)data)->comm, "freeze_me")
continue
thread
info threads
p $lx_current().comm
p $lx_current().thread_info.cpu
p $lx_per_cpu(runqueues, $lx_current().thread_info.cpu).curr->comm
# Without a CPU: the selected thread's (QEMU's stub names them CPU#N).
p $lx_per_cpu(runqueues).cpu
p $lx_per_cpu(runqueues, 0).cpu
p $lx_per_cpu(runqueues, 1).cpu
p $lx_per_cpu(runqueues, 2).cpu
p $lx_per_cpu(runqueues, 3).cpu
lx-frozen freezing
lx-ps
delete
# The thaw begins: freeze_me waits frozen in the todo wait, which
# lx-frozen finds on its stack from the stack pointer it was switched
# out with (thread.sp on x86).
hbreak todo_thaw_begin
continue
lx-frozen frozen
delete
