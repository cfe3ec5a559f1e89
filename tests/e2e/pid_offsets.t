# A glob over the probe name covers entry, return and every instruction offset
# (hexadecimal, without 0x) of the function; each fired once per call.
args: -q -n 'pid$target:a.out:work:* { @[probename] = count(); }' -c "$T/pid_calls"
status: 0
stdout-has:
  0                                                                 5
  entry                                                             5
  return                                                            5
