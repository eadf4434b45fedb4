build-km/obj/src/features/network/tls/tls_sites.o: \
  src/features/network/tls/tls_sites.c \
  src/features/network/tls/tls_sites.h

src/features/network/tls/tls_sites.h:
