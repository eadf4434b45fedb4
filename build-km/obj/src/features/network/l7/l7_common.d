build-km/obj/src/features/network/l7/l7_common.o: \
  src/features/network/l7/l7_common.c \
  src/features/network/l7/l7_common.h src/features/network/l7/l7.h \
  src/model/l7_op.h src/model/protocols.h include/enav/abi.h \
  src/platform/numfmt.h

src/features/network/l7/l7_common.h:

src/features/network/l7/l7.h:

src/model/l7_op.h:

src/model/protocols.h:

include/enav/abi.h:

src/platform/numfmt.h:
