from decimal import Decimal

import pytest

from clusterviz.apimachinery.quantity import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    FORMAT_ERROR,
    SUFFIX_ERROR,
    Quantity,
    QuantityError,
    format_bytes,
    format_cpu_millis,
    parse_quantity,
)

REGEX_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def test_format_error_is_upstreams_message():
    assert FORMAT_ERROR == REGEX_MESSAGE


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("0.5", "500m"),
        ("1024Mi", "1Gi"),
        ("128974848", "128974848"),
        ("1000", "1k"),
        ("1000M", "1G"),
        ("1Ki", "1Ki"),
        ("1Gi", "1Gi"),
        ("1.5Gi", "1536Mi"),
        ("0.5Mi", "512Ki"),
        (".001Ki", "1024m"),
        (".000001Ki", "1024u"),
        (".000000001Ki", "1024n"),
        (".000000000001Ki", "2n"),
        ("0.1", "100m"),
        ("100m", "100m"),
        ("1.5", "1500m"),
        ("2", "2"),
        ("250m", "250m"),
        ("1000m", "1"),
        ("0.000001", "1u"),
        ("1e3", "1e3"),
        ("1.2e3", "1200"),
        ("1.3E+6", "1300e3"),
        ("80e-3", "80e-3"),
        ("5n", "5n"),
        ("3.001n", "4n"),
        ("12E", "12E"),
        ("1000E", "1e21"),
        ("9Ei", "9223372036854775807"),
        ("0", "0"),
        ("0Ki", "0"),
        ("00", "0"),
        ("-1Gi", "-1Gi"),
        ("-0.5", "-500m"),
    ],
)
def test_canonical_form_matches_the_api_server(text, canonical):
    assert parse_quantity(text).canonical() == canonical


@pytest.mark.parametrize("text", ["+1", "05", "3Mi", "1e3", "5.444T"])
def test_text_already_in_canonical_shape_keeps_its_spelling(text):
    assert parse_quantity(text).canonical() == text


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ("1", DECIMAL_SI),
        ("5m", DECIMAL_SI),
        ("1Ki", BINARY_SI),
        ("1e3", DECIMAL_EXPONENT),
        ("1E", DECIMAL_SI),
        ("0.000000000001Ki", DECIMAL_SI),  # a binary value below 1 turns decimal
    ],
)
def test_format_follows_the_suffix(text, fmt):
    assert parse_quantity(text).format == fmt


@pytest.mark.parametrize(
    "text",
    ["", "aoeu", "1.1.M", "1+1.0M", "0.1am", " 1", "1 ", "1,5", "one", "1 Gi", "1.5.5", "1KiB", "1gi"],
)
def test_malformed_text_raises_the_regex_message(text):
    with pytest.raises(QuantityError) as exc:
        parse_quantity(text)
    assert str(exc.value) == REGEX_MESSAGE


@pytest.mark.parametrize("text", ["0.1mi", ".5i", "1i", "-3.01e-", "1e", "--1", "1e4294967297", "1E2147483648"])
def test_unknown_suffix_raises_the_suffix_message(text):
    with pytest.raises(QuantityError) as exc:
        parse_quantity(text)
    assert str(exc.value) == SUFFIX_ERROR


@pytest.mark.parametrize("value", [True, None, [1], {"cpu": 1}])
def test_non_numbers_are_rejected(value):
    with pytest.raises(QuantityError):
        parse_quantity(value)


@pytest.mark.parametrize(
    ("value", "canonical"),
    [(1, "1"), (2000, "2k"), (0.5, "500m"), (0.25, "250m"), (1e-05, "10e-6"), (Decimal("1.5"), "1500m")],
)
def test_json_numbers_parse_as_their_decimal_text(value, canonical):
    assert parse_quantity(value).canonical() == canonical


@pytest.mark.parametrize(
    ("text", "millis"),
    [
        ("1", 1000),
        ("0.5", 500),
        ("500m", 500),
        ("100u", 1),
        ("1n", 1),
        ("1.0001m", 2),
        ("1Ki", 1024000),
        ("-100u", -1),
        ("0", 0),
    ],
)
def test_milli_value_rounds_away_from_zero(text, millis):
    assert parse_quantity(text).milli_value() == millis


@pytest.mark.parametrize(
    ("text", "value"),
    [("1", 1), ("1.5", 2), ("100m", 1), ("128Mi", 134217728), ("1G", 10**9), ("-1.5", -2), ("0", 0)],
)
def test_value_rounds_up_to_a_whole_number(text, value):
    assert parse_quantity(text).value() == value


def test_huge_values_saturate_instead_of_growing_without_bound():
    assert parse_quantity("1e2147483647").value() == 2**63 - 1
    assert parse_quantity("-1e2147483647").milli_value() == -(2**63)


def test_values_round_up_to_whole_nano_units():
    assert parse_quantity("0.0000000001").as_decimal() == Decimal("1e-9")
    assert parse_quantity("0.00000012345").canonical() == "124n"


def test_binary_values_cap_at_the_int64_maximum():
    assert parse_quantity("9223372036854775807Ki").as_decimal() == 2**63 - 1


def test_quantities_compare_by_value_whatever_the_format():
    assert parse_quantity("1Gi") == parse_quantity("1073741824")
    assert parse_quantity("500m") < parse_quantity("1")
    assert parse_quantity("10000T") > parse_quantity("100Gi")
    assert parse_quantity("1k") >= parse_quantity("1e3")
    assert len({parse_quantity("1"), parse_quantity("1000m")}) == 1


def test_adding_keeps_the_left_format_unless_it_is_zero():
    total = parse_quantity("100m") + parse_quantity("1")
    assert total.canonical() == "1100m"
    assert (parse_quantity("0") + parse_quantity("1Gi")).canonical() == "1Gi"
    assert (parse_quantity("1Gi") - parse_quantity("512Mi")).canonical() == "512Mi"
    assert (-parse_quantity("1Gi")).canonical() == "-1Gi"


def test_round_up_to_milli_is_what_resource_lists_get():
    assert parse_quantity("0.5m").round_up().canonical() == "1m"
    assert parse_quantity("100n").round_up().canonical() == "1m"
    assert parse_quantity("+1").round_up().canonical() == "+1"


def test_from_milli_builds_cpu_amounts():
    assert Quantity.from_milli(1500).canonical() == "1500m"
    assert Quantity.from_milli(2000).milli_value() == 2000


@pytest.mark.parametrize(("millis", "text"), [(500, "500m"), (2000, "2"), (1500, "1500m"), (0, "0"), (100, "100m")])
def test_format_cpu_millis(millis, text):
    assert format_cpu_millis(millis) == text


@pytest.mark.parametrize(
    ("count", "text"),
    [(134217728, "128Mi"), (128974848, "123Mi"), (1073741824, "1Gi"), (1536, "1536"), (0, "0"), (2**33, "8Gi")],
)
def test_format_bytes(count, text):
    assert format_bytes(count) == text


def test_str_and_repr_show_the_canonical_form():
    quantity = parse_quantity("0.5")
    assert str(quantity) == "500m"
    assert repr(quantity) == "Quantity('500m')"
