# float, double and long double: declared, sized (4, 8, 16), zero when never
# stored, and printed by %e %f %g %E %G from their bytes (D has no floating-point
# arithmetic; a union gives them values).
args: -qn 'double z; union { uint64_t i; double d; } u; union { uint32_t i; float f; } v; union { uint64_t m[2]; long double ld; } w; BEGIN { u.i = 0x3ff8000000000000; v.i = 0xc0490fdb; w.m[0] = 0xc000000000000000; w.m[1] = 0xbfff; printf("%d %d %d\n", sizeof(float), sizeof(double), sizeof(long double)); printf("%e|%f|%g|%G|%E|%g|%.2f\n", z, u.d, v.f, u.d, v.f, w.ld, u.d); exit(0); }'
status: 0
stdout:
4 8 16
0.000000e+00|1.500000|-3.14159|1.5|-3.141593E+00|-1.5|1.50

