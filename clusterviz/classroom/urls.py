from django.contrib.auth import views as auth
from django.urls import path

from . import views

urlpatterns = [
    path("accounts/login/", auth.LoginView.as_view(template_name="classroom/login.html"), name="login"),
    path("accounts/logout/", auth.LogoutView.as_view(next_page="home"), name="logout"),
    path("classes/", views.classes, name="classes"),
    path("classes/<slug:slug>/", views.classroom, name="classroom"),
    path("classes/<slug:slug>/kubeconfig", views.kubeconfig, name="kubeconfig"),
    path("join/<slug:slug>/", views.join, name="join"),
]
