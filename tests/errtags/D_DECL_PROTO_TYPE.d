void g(int, string m[int]);
