build-km/obj/src/features/network/l7/l7_parsers.o: \
  src/features/network/l7/l7_parsers.c src/features/network/l7/l7.h \
  src/model/l7_op.h src/model/protocols.h

src/features/network/l7/l7.h:

src/model/l7_op.h:

src/model/protocols.h:
