from django.urls import path

from .consumers import ClusterConsumer
from .presenter_consumer import PresenterConsumer

websocket_urlpatterns = [
    path("ws/c/<slug:cluster>/", ClusterConsumer.as_asgi()),
    path("ws/c/<slug:cluster>/present/", PresenterConsumer.as_asgi()),
]
