struct out { int a; };
translator struct out < int x > {
	b = x;
};
