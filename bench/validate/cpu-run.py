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

start = time.perf_counter()
out = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, text=True).stdout
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print((out.splitlines() or [""])[0])
print("%.4f %.4f" % (usage.ru_utime + usage.ru_stime, wall))
