signed double z;
