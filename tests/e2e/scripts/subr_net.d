#pragma D option quiet

BEGIN {
  printf("%x %x %x %x\n", htons(0x1122334455667788ll), htonl(0x1122334455667788ll), htonll(0x1122334455667788ll), ntohs(0xabcd));
  this->v4 = (uint8_t *)alloca(4);
  this->v4[0] = 10; this->v4[1] = 0; this->v4[2] = 200; this->v4[3] = 7;
  printf("%s %s %d %d\n", inet_ntoa((ipaddr_t *)this->v4), inet_ntop(AF_INET, this->v4), AF_INET, AF_INET6);
  this->a = (uint8_t *)alloca(16);
  printf("[%s]\n", inet_ntoa6((in6_addr_t *)this->a));
  this->a[0] = 0x20; this->a[1] = 0x01; this->a[2] = 0x0d; this->a[3] = 0xb8; this->a[15] = 0x2a;
  printf("[%s]\n", inet_ntoa6((in6_addr_t *)this->a));
  this->a[6] = 0x01;
  printf("[%s]\n", inet_ntoa6((in6_addr_t *)this->a));
  this->b = (uint8_t *)alloca(16);
  this->b[10] = 0xff; this->b[11] = 0xff; this->b[12] = 192; this->b[15] = 9;
  printf("[%s] [%s] [%s]\n", inet_ntoa6((in6_addr_t *)this->b), inet_ntoa6((in6_addr_t *)this->b, 1), inet_ntop(AF_INET6, this->b));
  this->b[10] = 0; this->b[11] = 0;
  printf("[%s] [%s]\n", inet_ntoa6((in6_addr_t *)this->b), inet_ntop(AF_INET6, this->b));
  this->b[12] = 0; this->b[15] = 1;
  printf("[%s]\n", inet_ntop(AF_INET6, this->b));
  exit(0);
}
