/* a comment that never ends
BEGIN { }
