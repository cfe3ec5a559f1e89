/* a header with a mistake */
BEGIN { y = "b" * 2; }
