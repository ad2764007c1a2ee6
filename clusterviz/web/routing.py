from django.urls import path

from .consumers import ClusterConsumer

websocket_urlpatterns = [path("ws/c/<slug:cluster>/", ClusterConsumer.as_asgi())]
