struct out { int a; };
translator struct out < int x > { a = x; };
translator struct out < int y > { a = y + 1; };
