build-km/obj/src/features/network/tls/go_tls.o: \
  src/features/network/tls/go_tls.c src/features/network/tls/go_tls.h \
  src/features/profiling/go_buildinfo.h

src/features/network/tls/go_tls.h:

src/features/profiling/go_buildinfo.h:
