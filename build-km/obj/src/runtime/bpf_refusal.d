build-km/obj/src/runtime/bpf_refusal.o: src/runtime/bpf_refusal.c \
  src/runtime/bpf_refusal.h src/platform/log.h src/platform/promtext.h

src/runtime/bpf_refusal.h:

src/platform/log.h:

src/platform/promtext.h:
