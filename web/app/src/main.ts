// Entry point: builds the viewer and opens the world the URL names
// (?world=<name>, default "default"), loading ?scene=<stem> into it first.
import "./style.css";
import { Client } from "@linkage/client";
import { App } from "./app";
import { installHook } from "./automation";
import { Controls } from "./controls";
import { Messages } from "./messages";
import { Plots } from "./plots";
import { loadScene } from "./scenes";
import { getToken } from "./token";

const messages = new Messages(document.getElementById("messages")!);
// Whatever slips past the calls' own handling is shown, never thrown at the user.
window.addEventListener("unhandledrejection", (e) => {
  e.preventDefault();
  messages.error(e.reason);
});

const stage = document.querySelector<HTMLElement>(".stage")!;
const plots = new Plots(document.getElementById("plots")!);
const app = new App(new Client({ token: getToken }), messages, plots, {
  stage,
  status: document.getElementById("status")!,
  conn: document.getElementById("conn")!,
});
installHook(app, plots);
const params = new URLSearchParams(window.location.search);
const world = params.get("world") || "default";
const scene = params.get("scene");
new Controls(app, stage);

void app.open(world, scene ? () => loadScene(app, scene, world) : undefined);
