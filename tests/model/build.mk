# tests/model/build.mk - the Spin model of the lock-word protocol.
#
# `make model-check` verifies tests/model/uspin.pml in every configuration
# (see check.sh): pan.c and friends are generated under $(BUILD)/model.
# Needs spin and gcc (DEB_TEST).  All three models (this one, library.pml
# and condvar.pml: tests/build.mk) take minutes: check-full runs them,
# make test only library.pml's small configurations.

MODEL_DIR := tests/model
MODEL_OUT := $(BUILD)/model

.PHONY: model-check
model-check:
	@sh $(MODEL_DIR)/check.sh $(MODEL_OUT)
FULL_STEPS += model-check
