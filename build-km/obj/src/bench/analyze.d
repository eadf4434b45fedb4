build-km/obj/src/bench/analyze.o: src/bench/analyze.c src/bench/analyze.h

src/bench/analyze.h:
