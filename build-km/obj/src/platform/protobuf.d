build-km/obj/src/platform/protobuf.o: src/platform/protobuf.c \
  src/platform/protobuf.h

src/platform/protobuf.h:
