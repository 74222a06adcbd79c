# vdso/: the running-state providers, compiled into libuspin.
VDSO_SRCS := vdso/running_state.c vdso/provider_none.c vdso/provider_vdso.c \
             vdso/provider_rseq.c \
             vdso/vdso_sym.c vdso/pid_namespace.c
LIB_SRCS  += $(VDSO_SRCS)
