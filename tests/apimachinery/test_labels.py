import pytest

from clusterviz.apimachinery.labels import (
    DOES_NOT_EXIST,
    DOUBLE_EQUALS,
    EQUALS,
    EXISTS,
    GREATER_THAN,
    IN,
    NOT_EQUALS,
    NOT_IN,
    Requirement,
    Selector,
    SelectorError,
    everything,
    format_label_selector,
    nothing,
    parse_selector,
    selector_from_label_selector,
    selector_from_set,
)

WEB = {"app": "web", "tier": "frontend", "env": "prod"}
DB = {"app": "db", "tier": "backend"}


# --- parsing ---------------------------------------------------------------------


def test_empty_string_parses_to_match_everything_selector():
    selector = parse_selector("")
    assert selector.empty
    assert selector.matches(WEB)
    assert selector.matches({})
    assert selector.matches(None)
    assert str(selector) == ""


def test_whitespace_only_string_is_also_everything():
    assert parse_selector("  \t ").empty


@pytest.mark.parametrize(
    ("text", "key", "operator", "values"),
    [
        ("app=web", "app", EQUALS, ("web",)),
        ("app==web", "app", DOUBLE_EQUALS, ("web",)),
        ("app!=web", "app", NOT_EQUALS, ("web",)),
        ("app in (web,db)", "app", IN, ("db", "web")),
        ("app notin (web)", "app", NOT_IN, ("web",)),
        ("app", "app", EXISTS, ()),
        ("!app", "app", DOES_NOT_EXIST, ()),
        ("replicas>2", "replicas", GREATER_THAN, ("2",)),
        ("app.kubernetes.io/name=web", "app.kubernetes.io/name", EQUALS, ("web",)),
    ],
)
def test_each_operator_parses_into_one_requirement(text, key, operator, values):
    assert parse_selector(text).requirements == (Requirement(key, operator, values),)


def test_whitespace_around_tokens_is_ignored():
    assert parse_selector("  app = web ,  tier  in ( a , b ) , ! canary ") == parse_selector(
        "app=web,tier in (a,b),!canary"
    )


def test_equals_with_no_value_means_empty_value():
    selector = parse_selector("app=")
    assert selector.requirements == (Requirement("app", EQUALS, ("",)),)
    assert selector.matches({"app": ""})
    assert not selector.matches({"app": "web"})


def test_empty_slots_in_set_stand_for_empty_value():
    assert parse_selector("x in (foo,,baz)").requirements[0].values == ("", "baz", "foo")
    assert parse_selector("x in ()").requirements[0].values == ("",)
    assert parse_selector("x in (,a)").requirements[0].values == ("", "a")
    assert parse_selector("x in (a,)").requirements[0].values == ("", "a")


def test_set_values_are_deduplicated_and_sorted():
    assert parse_selector("x in (b,a,b)").requirements[0].values == ("a", "b")


def test_in_and_notin_are_plain_values_inside_parentheses():
    assert parse_selector("x in (in,notin)").requirements[0].values == ("in", "notin")


def test_requirements_are_sorted_by_key_in_string_form():
    assert str(parse_selector("tier=frontend,app=web,!canary")) == "app=web,!canary,tier=frontend"


def test_string_form_round_trips_through_parser():
    text = "app in (a,b),env notin (dev),owner,!canary,tier!=db,version==2"
    selector = parse_selector(text)
    assert parse_selector(str(selector)) == selector


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a=b,", "found '', expected: identifier after ','"),
        ("a=b,,c", "found ',', expected: identifier after ','"),
        (",a", "found ',', expected: !, identifier, or 'end of string'"),
        ("a=b c", "found 'c', expected: ',' or 'end of string'"),
        ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
        ("a in b", "unable to parse requirement: found 'b' expected: '('"),
        ("a in (b", "unable to parse requirement: found '', expected: ',' or ')'"),
        ("a in (b c)", "unable to parse requirement: found 'c', expected: ',' or ')'"),
        ("a in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"),
        ("a=(", "unable to parse requirement: found '(', expected: identifier"),
        ("!=a", "found '!=', expected: !, identifier, or 'end of string'"),
        ("!", "unable to parse requirement: found '', expected: identifier"),
        ("!a=b", "found '=', expected: ',' or 'end of string'"),
    ],
)
def test_syntax_errors_use_upstream_messages(text, message):
    with pytest.raises(SelectorError) as excinfo:
        parse_selector(text)
    assert str(excinfo.value) == message


def test_invalid_key_error_names_the_key_with_nil_path():
    with pytest.raises(SelectorError) as excinfo:
        parse_selector("Foo_%=bar")
    assert str(excinfo.value) == (
        'unable to parse requirement: <nil>: Invalid value: "Foo_%": name part must consist of alphanumeric '
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
        "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
    )


def test_invalid_value_error_names_value_index_and_key():
    with pytest.raises(SelectorError) as excinfo:
        parse_selector("app=a/b")
    assert str(excinfo.value).startswith(
        'unable to parse requirement: values[0][app]: Invalid value: "a/b": a valid label must be an empty string'
    )


def test_several_invalid_values_are_reported_together_in_brackets():
    with pytest.raises(SelectorError) as excinfo:
        parse_selector("app in (-a,-b)")
    message = str(excinfo.value)
    assert message.startswith('unable to parse requirement: [values[0][app]: Invalid value: "-a"')
    assert 'values[1][app]: Invalid value: "-b"' in message
    assert message.endswith("]")


def test_gt_requires_an_integer_value():
    with pytest.raises(SelectorError) as excinfo:
        parse_selector("a>x")
    assert str(excinfo.value) == (
        "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must "
        "be an integer"
    )


def test_selector_error_is_a_value_error_with_message():
    with pytest.raises(ValueError) as excinfo:
        parse_selector("a b")
    assert excinfo.value.message == str(excinfo.value)


# --- matching -----------------------------------------------------------------------


def test_equality_matches_only_exact_value():
    selector = parse_selector("app=web")
    assert selector.matches(WEB)
    assert not selector.matches(DB)
    assert not selector.matches({})


def test_set_in_matches_any_listed_value():
    selector = parse_selector("app in (web,db)")
    assert selector.matches(WEB)
    assert selector.matches(DB)
    assert not selector.matches({"app": "cache"})
    assert not selector.matches({"tier": "backend"})


def test_not_equals_matches_objects_without_the_label():
    selector = parse_selector("app!=web")
    assert selector.matches(DB)
    assert selector.matches({})
    assert not selector.matches(WEB)


def test_notin_matches_objects_without_the_label():
    selector = parse_selector("env notin (prod,staging)")
    assert selector.matches(DB)
    assert selector.matches({"env": "dev"})
    assert not selector.matches(WEB)


def test_exists_requires_key_with_any_value():
    selector = parse_selector("env")
    assert selector.matches(WEB)
    assert selector.matches({"env": ""})
    assert not selector.matches(DB)


def test_does_not_exist_rejects_key_even_with_empty_value():
    selector = parse_selector("!env")
    assert selector.matches(DB)
    assert not selector.matches({"env": ""})


def test_comma_means_all_requirements_must_hold():
    selector = parse_selector("app=web,tier=frontend")
    assert selector.matches(WEB)
    assert not selector.matches({"app": "web", "tier": "backend"})


def test_gt_and_lt_compare_as_integers():
    assert parse_selector("gen>9").matches({"gen": "10"})
    assert not parse_selector("gen>10").matches({"gen": "10"})
    assert parse_selector("gen<10").matches({"gen": "9"})
    assert not parse_selector("gen<10").matches({"gen": "nine"})
    assert not parse_selector("gen<10").matches({})


def test_requires_exact_match_reports_pinned_value():
    selector = parse_selector("app=web,tier in (a,b)")
    assert selector.requires_exact_match("app") == "web"
    assert selector.requires_exact_match("tier") is None
    assert selector.requires_exact_match("env") is None


def test_add_returns_new_selector_without_changing_original():
    base = parse_selector("tier=db")
    extended = base.add(Requirement("app", EQUALS, ("web",)))
    assert str(base) == "tier=db"
    assert str(extended) == "app=web,tier=db"


# --- everything / nothing --------------------------------------------------------------


def test_nothing_selector_matches_no_labels_and_is_not_empty():
    selector = nothing()
    assert not selector.matches({})
    assert not selector.matches(WEB)
    assert not selector.empty
    assert selector.matches_nothing
    assert str(selector) == ""
    assert selector != everything()


def test_everything_selector_is_empty_and_matches_all():
    selector = everything()
    assert selector.empty
    assert selector.matches(WEB)
    assert selector == Selector()


# --- API object form ---------------------------------------------------------------------


def test_none_label_selector_matches_nothing_like_upstream():
    selector = selector_from_label_selector(None)
    assert selector.matches_nothing
    assert not selector.matches(WEB)


def test_none_label_selector_can_be_asked_to_match_everything():
    assert selector_from_label_selector(None, none_matches_everything=True).matches(WEB)


@pytest.mark.parametrize("obj", [{}, {"matchLabels": {}}, {"matchLabels": {}, "matchExpressions": []}])
def test_empty_label_selector_matches_everything(obj):
    selector = selector_from_label_selector(obj)
    assert selector.empty
    assert selector.matches({})


def test_match_labels_string_form_is_deployment_table_style():
    selector = selector_from_label_selector({"matchLabels": {"tier": "frontend", "app": "myapp"}})
    assert str(selector) == "app=myapp,tier=frontend"
    assert selector.matches({"app": "myapp", "tier": "frontend", "pod-template-hash": "abc"})
    assert not selector.matches({"app": "myapp"})


def test_match_expressions_support_all_four_operators():
    selector = selector_from_label_selector(
        {
            "matchLabels": {"app": "web"},
            "matchExpressions": [
                {"key": "env", "operator": "In", "values": ["prod", "staging"]},
                {"key": "tier", "operator": "NotIn", "values": ["db"]},
                {"key": "owner", "operator": "Exists"},
                {"key": "canary", "operator": "DoesNotExist"},
            ],
        }
    )
    assert str(selector) == "app=web,!canary,env in (prod,staging),owner,tier notin (db)"
    assert selector.matches({"app": "web", "env": "prod", "owner": "me"})
    assert not selector.matches({"app": "web", "env": "prod", "owner": "me", "canary": "1"})
    assert not selector.matches({"app": "web", "env": "dev", "owner": "me"})
    assert not selector.matches({"app": "web", "env": "prod", "owner": "me", "tier": "db"})


def test_match_expression_values_print_sorted():
    selector = selector_from_label_selector(
        {"matchExpressions": [{"key": "env", "operator": "In", "values": ["b", "a"]}]}
    )
    assert str(selector) == "env in (a,b)"


def test_unknown_operator_is_rejected_with_upstream_message():
    with pytest.raises(SelectorError) as excinfo:
        selector_from_label_selector({"matchExpressions": [{"key": "a", "operator": "Equals", "values": ["x"]}]})
    assert str(excinfo.value) == '"Equals" is not a valid pod selector operator'


def test_lowercase_operator_spelling_is_not_accepted_in_object_form():
    with pytest.raises(SelectorError):
        selector_from_label_selector({"matchExpressions": [{"key": "a", "operator": "in", "values": ["x"]}]})


def test_in_without_values_is_rejected():
    with pytest.raises(SelectorError) as excinfo:
        selector_from_label_selector({"matchExpressions": [{"key": "a", "operator": "In", "values": []}]})
    assert str(excinfo.value) == "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"


def test_exists_with_values_is_rejected():
    with pytest.raises(SelectorError) as excinfo:
        selector_from_label_selector({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]})
    assert str(excinfo.value) == 'values: Invalid value: ["x"]: values set must be empty for exists and does not exist'


def test_invalid_match_labels_key_uses_key_path():
    with pytest.raises(SelectorError) as excinfo:
        selector_from_label_selector({"matchLabels": {"bad key": "x"}})
    assert str(excinfo.value).startswith('key: Invalid value: "bad key": name part must consist of')


def test_invalid_match_labels_value_uses_indexed_value_path():
    with pytest.raises(SelectorError) as excinfo:
        selector_from_label_selector({"matchLabels": {"app": "not valid"}})
    assert str(excinfo.value).startswith('values[0][app]: Invalid value: "not valid": a valid label must be')


def test_non_string_match_labels_value_is_rejected():
    with pytest.raises(SelectorError):
        selector_from_label_selector({"matchLabels": {"replicas": 3}})


def test_format_label_selector_gives_none_error_or_text():
    assert format_label_selector({"matchLabels": {"app": "myapp"}}) == "app=myapp"
    assert format_label_selector({}) == "<none>"
    assert format_label_selector(None) == "<none>"
    assert format_label_selector({"matchExpressions": [{"key": "a", "operator": "Bogus"}]}) == "<error>"


def test_selector_from_set_builds_equality_requirements():
    selector = selector_from_set({"run": "nginx", "app": "web"})
    assert str(selector) == "app=web,run=nginx"
    assert selector.matches({"app": "web", "run": "nginx", "extra": "x"})
    assert not selector.matches({"app": "web"})


@pytest.mark.parametrize("labels", [None, {}])
def test_selector_from_empty_set_matches_everything(labels):
    assert selector_from_set(labels).empty


# --- Requirement.new validation -------------------------------------------------------------------


def test_new_requirement_rejects_unknown_operator():
    with pytest.raises(SelectorError) as excinfo:
        Requirement.new("a", "like", ["x"])
    assert str(excinfo.value).startswith('operator: Unsupported value: "like": supported values: "in", "notin"')


def test_new_requirement_exact_match_needs_one_value():
    with pytest.raises(SelectorError) as excinfo:
        Requirement.new("a", EQUALS, ["x", "y"])
    assert str(excinfo.value) == 'values: Invalid value: ["x","y"]: exact-match compatibility requires one single value'


def test_new_requirement_keeps_values_in_given_order():
    assert Requirement.new("a", IN, ["b", "a"]).values == ("b", "a")
