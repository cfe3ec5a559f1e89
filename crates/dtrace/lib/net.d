/*
 * net.d: the network types and constants of DTrace's network subroutines
 * (inet_ntoa, inet_ntoa6, inet_ntop, link_ntop): an IPv4 address in network
 * byte order, the kernel's IPv6 address, and Linux's address families, IP
 * protocol numbers and ARP hardware types.
 */

typedef uint32_t ipaddr_t;
typedef struct in6_addr in6_addr_t;

inline int AF_UNSPEC = 0;
inline int AF_UNIX = 1;
inline int AF_LOCAL = 1;
inline int AF_INET = 2;
inline int AF_AX25 = 3;
inline int AF_IPX = 4;
inline int AF_APPLETALK = 5;
inline int AF_BRIDGE = 7;
inline int AF_INET6 = 10;
inline int AF_KEY = 15;
inline int AF_NETLINK = 16;
inline int AF_ROUTE = 16;
inline int AF_PACKET = 17;
inline int AF_RDS = 21;
inline int AF_CAN = 29;
inline int AF_TIPC = 30;
inline int AF_BLUETOOTH = 31;
inline int AF_ALG = 38;
inline int AF_VSOCK = 40;
inline int AF_XDP = 44;

inline int IPPROTO_IP = 0;
inline int IPPROTO_ICMP = 1;
inline int IPPROTO_IGMP = 2;
inline int IPPROTO_IPIP = 4;
inline int IPPROTO_TCP = 6;
inline int IPPROTO_EGP = 8;
inline int IPPROTO_PUP = 12;
inline int IPPROTO_UDP = 17;
inline int IPPROTO_IDP = 22;
inline int IPPROTO_TP = 29;
inline int IPPROTO_DCCP = 33;
inline int IPPROTO_IPV6 = 41;
inline int IPPROTO_ROUTING = 43;
inline int IPPROTO_FRAGMENT = 44;
inline int IPPROTO_RSVP = 46;
inline int IPPROTO_GRE = 47;
inline int IPPROTO_ESP = 50;
inline int IPPROTO_AH = 51;
inline int IPPROTO_ICMPV6 = 58;
inline int IPPROTO_NONE = 59;
inline int IPPROTO_DSTOPTS = 60;
inline int IPPROTO_MTP = 92;
inline int IPPROTO_ENCAP = 98;
inline int IPPROTO_PIM = 103;
inline int IPPROTO_COMP = 108;
inline int IPPROTO_SCTP = 132;
inline int IPPROTO_UDPLITE = 136;
inline int IPPROTO_MPLS = 137;
inline int IPPROTO_RAW = 255;

inline int ARPHRD_ETHER = 1;
inline int ARPHRD_INFINIBAND = 32;
inline int ARPHRD_LOOPBACK = 772;
