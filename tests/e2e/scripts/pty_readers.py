# Readers of one pseudo-terminal. The kernel's n_tty_read holds the tty's
# read mutex while it waits for a line, so: the first reader waits for input
# holding it; the second blocks on that mutex for about 0.3 s, until the
# first has its line, then gets it (a mutex wait that blocked); a third,
# another process, blocks on it too and is killed while it waits (a mutex
# wait that failed). Prints "done" at the end.
import os
import signal
import threading
import time

master, slave = os.openpty()


def read_line():
    os.read(slave, 64)


first = threading.Thread(target=read_line)
first.start()
time.sleep(0.1)
second = threading.Thread(target=read_line)
second.start()
child = os.fork()
if child == 0:
    read_line()
    os._exit(0)
time.sleep(0.3)
os.kill(child, signal.SIGKILL)
os.waitpid(child, 0)
os.write(master, b"one\n")
first.join()
time.sleep(0.05)
os.write(master, b"two\n")
second.join()
print("done")
