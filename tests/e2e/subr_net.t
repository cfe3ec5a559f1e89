# The byte-order and network-address subroutines: hton*/ntoh* swap bytes on this
# little-endian host; inet_ntoa writes a dotted quad; inet_ntoa6 compresses the
# longest run of zero groups and writes IPv4-mapped/compatible addresses as
# dotted quads (inet_ntop and a non-zero second argument keep the :: prefixes).
args: -s "$S/subr_net.d"
status: 0
stdout:
8877 88776655 8877665544332211 cdab
10.0.200.7 10.0.200.7 2 10
[::]
[2001:db8::2a]
[2001:db8:0:100::2a]
[192.0.0.9] [::ffff:192.0.0.9] [::ffff:192.0.0.9]
[192.0.0.9] [::192.0.0.9]
[::1]

