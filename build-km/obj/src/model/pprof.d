build-km/obj/src/model/pprof.o: src/model/pprof.c src/model/pprof.h \
  src/platform/protobuf.h

src/model/pprof.h:

src/platform/protobuf.h:
