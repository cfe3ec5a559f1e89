int float y;
