union u {
	union later l;
};
