# cpu-run.py — run a command; print the first line of its stdout, then "<cpu>
# <wall>": the CPU seconds (user + system) it used as a whole process and the
# wall seconds from spawn to exit, start-up included either way (this
# interpreter's own start-up is not). CPU time, unlike wall time, does not
# grow while the process waits for a core on a shared machine.
# Usage: python3 cpu-run.py CMD ARGS...
import resource
import subprocess
import sys
import time

# children this interpreter inherited the accounting of (a pyenv shim's own
# helpers, for one) are not the command's: count from here
before = resource.getrusage(resource.RUSAGE_CHILDREN)
start = time.perf_counter()
out = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, text=True).stdout
wall = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print((out.splitlines() or [""])[0])
print("%.4f %.4f" % (cpu, wall))
