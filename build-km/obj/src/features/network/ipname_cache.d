build-km/obj/src/features/network/ipname_cache.o: \
  src/features/network/ipname_cache.c \
  src/features/network/ipname_cache.h src/features/network/dns.h

src/features/network/ipname_cache.h:

src/features/network/dns.h:
