"""The home page lists the clusters with their nodes."""

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_home_lists_the_demo_cluster_and_its_ready_nodes(client):
    response = client.get("/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "<h2>demo</h2>" in page
    assert page.count('class="ready"') == 3
    assert "/c/demo get nodes" in page
