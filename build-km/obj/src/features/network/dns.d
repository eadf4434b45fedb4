build-km/obj/src/features/network/dns.o: src/features/network/dns.c \
  src/features/network/dns.h

src/features/network/dns.h:
