# vdso/: the running-state providers, compiled into libuspin.
VDSO_SRCS := vdso/running_state.c vdso/provider_none.c
LIB_SRCS  += $(VDSO_SRCS)
