from clusterviz.apimachinery.field import invalid


def test_field_error_reads_like_kubectl():
    err = invalid("spec.replicas", -1, "must be greater than or equal to 0")
    assert str(err) == "spec.replicas: Invalid value: -1: must be greater than or equal to 0"
