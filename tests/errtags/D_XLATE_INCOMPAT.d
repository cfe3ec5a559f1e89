struct out { int a; };
translator struct out < int x > {
	a = "text";
};
