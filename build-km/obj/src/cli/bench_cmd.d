build-km/obj/src/cli/bench_cmd.o: src/cli/bench_cmd.c src/cli/bench_cmd.h \
  src/bench/analyze.h

src/cli/bench_cmd.h:

src/bench/analyze.h:
