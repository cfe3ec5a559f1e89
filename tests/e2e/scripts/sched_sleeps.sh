# Sleeps five times (each puts the shell's child off the CPU and back).
/bin/sleep 0.05
/bin/sleep 0.05
/bin/sleep 0.05
/bin/sleep 0.05
/bin/sleep 0.05
