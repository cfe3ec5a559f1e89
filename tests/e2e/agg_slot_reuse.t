# Removing keys frees their slots for new keys: with aggsize=1k an int-keyed count() holds 42 keys (1024 / (8 + 8 + 8)); 40 keys are added, truncated, and 40 other keys added after the consumer has processed trunc(), which needs the freed slots (and their values zeroed: each new key counts 2). No drops.
args: -x aggsize=1k -x switchrate=10ms -qn 'int n; uint64_t t; tick-1ms /n < 40/ { @[n] = count(); n++; } tick-1ms /n == 40/ { trunc(@); n++; t = timestamp; } tick-1ms /n == 41 && timestamp - t > 200000000/ { n = 100; } tick-1ms /n >= 100 && n < 140/ { @[n] = count(); @[n] = count(); n++; } tick-1ms /n == 140/ { exit(0); }'
status: 0
stdout:

      100                2
      101                2
      102                2
      103                2
      104                2
      105                2
      106                2
      107                2
      108                2
      109                2
      110                2
      111                2
      112                2
      113                2
      114                2
      115                2
      116                2
      117                2
      118                2
      119                2
      120                2
      121                2
      122                2
      123                2
      124                2
      125                2
      126                2
      127                2
      128                2
      129                2
      130                2
      131                2
      132                2
      133                2
      134                2
      135                2
      136                2
      137                2
      138                2
      139                2
stderr:
