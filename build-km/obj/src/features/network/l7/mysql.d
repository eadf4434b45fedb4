build-km/obj/src/features/network/l7/mysql.o: \
  src/features/network/l7/mysql.c src/features/network/l7/l7_common.h \
  src/features/network/l7/l7.h src/model/l7_op.h src/model/protocols.h \
  src/features/network/l7/l7_text.h

src/features/network/l7/l7_common.h:

src/features/network/l7/l7.h:

src/model/l7_op.h:

src/model/protocols.h:

src/features/network/l7/l7_text.h:
