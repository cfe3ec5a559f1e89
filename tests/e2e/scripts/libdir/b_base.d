inline int BASE_SCALE = 3;
