/*===- not_a_model.c - a shared object without a graphc descriptor --------===*/
__attribute__((visibility("default"))) int graphc_test_not_a_model(void) {
  return 42;
}
